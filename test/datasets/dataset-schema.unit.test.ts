/** A dataset's response schema is built from its declaration on first use, and only then. */
import { describe, expect, it } from 'vitest';
import { schemaOf } from '../../src/datasets/dataset-schema.js';
import { getDataset, type Dataset } from '../../src/datasets/index.js';

describe('schemaOf', () => {
  it('builds a declaration\'s schema once, on first use, and hands back the same schema after', () => {
    let builds = 0;
    const visitors = getDataset('visitors');
    const counted: Dataset = {
      ...visitors,
      schema: (zod) => {
        builds++;
        return visitors.schema(zod);
      },
    };
    expect(builds).toBe(0);
    const first = schemaOf(counted);
    expect(schemaOf(counted)).toBe(first);
    expect(builds).toBe(1);
  });
});
