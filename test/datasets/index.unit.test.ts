/**
 * The dataset registry through its public functions (src/datasets/index.ts): every declared name
 * finds its dataset, a name it does not know is refused by name, and a `--dataset` list names a bad
 * entry in one short line that lists the names there are.
 */
import { describe, expect, it } from 'vitest';
import { checkRegistry, DATASET_NAMES, DATASETS, getDataset, isDatasetName, migrationsOf, parseDatasetList, type Dataset, type DatasetMigration, type DatasetName } from '../../src/datasets/index.js';
import { UsageError } from '../../src/errors.js';

describe('the dataset registry', () => {
  it('finds the dataset of every declared name, and knows no other name', () => {
    for (const name of DATASET_NAMES) {
      expect(isDatasetName(name)).toBe(true);
      expect(getDataset(name).name).toBe(name);
    }
    expect(DATASETS.map((d) => getDataset(d.name))).toEqual(DATASETS);
    expect(isDatasetName('all')).toBe(false);
  });

  it('refuses a name it does not know, naming it', () => {
    expect(() => getDataset('visits' as DatasetName)).toThrow(new TypeError('no dataset visits'));
  });

  it('names an unknown --dataset entry by its first 40 characters and lists the names there are', () => {
    const long = `v${'x'.repeat(99)}`;
    const parse = () => parseDatasetList(`views,${long}`, '--dataset', []);
    // An error instance makes toThrow compare the class and the whole message.
    expect(parse).toThrow(new UsageError(`--dataset: unknown dataset "${long.slice(0, 40)}" (one of: ${DATASET_NAMES.join(', ')}, all)`));
  });
});

/** A declaration like `base` under another name, pagination or migration. */
function like(base: Dataset, changes: Partial<Dataset>): Dataset {
  return { ...base, ...changes };
}

describe('the registry check run on load', () => {
  const visitors = getDataset('visitors');
  const threads = getDataset('assistant-threads');

  it('gives the datasets in the registry order when every key names its declaration and every fanout its source', () => {
    expect(checkRegistry({ visitors, 'assistant-threads': threads, assistant: getDataset('assistant') })).toEqual([visitors, threads, getDataset('assistant')]);
  });

  it('refuses a declaration whose name is not its key, naming both', () => {
    expect(() => checkRegistry({ visitors, referrers: visitors })).toThrow(new TypeError('dataset "referrers" declares the name "visitors"'));
  });

  it('refuses a fanout from a dataset the registry does not hold, even one registered elsewhere', () => {
    // assistant-threads fans out from assistant: without it in this registry, the source is unknown.
    expect(() => checkRegistry({ visitors, 'assistant-threads': threads })).toThrow(new TypeError('dataset "assistant-threads" fans out from unknown "assistant"'));
  });

  it('collects the migrations the datasets carry, in their order, and nothing for those without one', () => {
    const own = (version: number): DatasetMigration => ({ version, name: `own-${version}`, statements: () => [] });
    const [nine, ten] = [own(9), own(10)];
    expect(migrationsOf([like(visitors, { migration: ten }), visitors, like(visitors, { migration: nine })])).toEqual([ten, nine]);
    expect(migrationsOf([visitors])).toEqual([]);
  });
});
