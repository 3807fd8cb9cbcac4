import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DATASET_NAMES, DATASETS, getDataset, type Dataset } from '../../src/datasets/index.js';
import { EMULATOR_DATASETS } from '../../src/emulator/datasets/index.js';
import { analyticsSpec } from '../support/analytics-spec.js';

/** Mintlify's published analytics OpenAPI, kept as fetched (mintlify/docs, analytics.openapi.json). */
const publishedText = readFileSync(new URL('../support/analytics.openapi.json', import.meta.url), 'utf8');
const published = JSON.parse(publishedText) as { paths: Record<string, Record<string, unknown>> };
const PREFIX = '/v1/analytics/{projectId}/';

/** A path under the analytics prefix with every parameter written `{}` (`:threadId`, `{threadId}`, an id). */
function shape(path: string): string {
  return path.replace(/\{\w+\}|:\w+/g, '{}');
}

function pipelinePath(dataset: Dataset): string {
  return shape(dataset.pagination.kind === 'fanout' ? dataset.pagination.endpointFor('{}') : dataset.endpoint);
}

const sorted = (values: Iterable<string>) => [...values].sort();

describe('a dataset is the same in the pipeline, the emulator and the published spec', () => {
  it('the emulator serves exactly the datasets the pipeline declares, by the same names', () => {
    expect(sorted(Object.keys(EMULATOR_DATASETS))).toEqual(sorted(DATASETS.map((dataset) => dataset.name)));
    expect(sorted(DATASET_NAMES)).toEqual(sorted(DATASETS.map((dataset) => dataset.name)));
  });

  it('the emulator answers each dataset at the path the pipeline asks', () => {
    for (const name of DATASET_NAMES) expect(shape(EMULATOR_DATASETS[name].path), name).toBe(pipelinePath(getDataset(name)));
  });

  it('the analytics operations of the published spec are exactly the pipeline datasets', () => {
    const operations = Object.entries(published.paths)
      .filter(([path, methods]) => path.startsWith(PREFIX) && 'get' in methods)
      .map(([path]) => shape(path.slice(PREFIX.length)));
    expect(operations.length).toBeGreaterThan(0);
    expect(sorted(operations)).toEqual(sorted(DATASETS.map(pipelinePath)));
  });

  it('the schemas the emulator tests validate against are derived from this published file, one operation per dataset', () => {
    const sha256 = createHash('sha256').update(publishedText).digest('hex');
    expect((analyticsSpec as unknown as { $comment: string }).$comment).toContain(`sha256 ${sha256}`);
    const derived = Object.entries(analyticsSpec.operations).map(([name, operation]) => [name, shape(operation.path.slice(PREFIX.length))]);
    expect(sorted(derived.map(([name, path]) => `${name} ${path}`))).toEqual(sorted(DATASETS.map((d) => `${d.name} ${pipelinePath(d)}`)));
  });
});
