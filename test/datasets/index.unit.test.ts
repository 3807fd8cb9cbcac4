/**
 * The dataset registry through its public functions (src/datasets/index.ts): every declared name
 * finds its dataset, a name it does not know is refused by name, and a `--dataset` list names a bad
 * entry in one short line that lists the names there are.
 */
import { describe, expect, it } from 'vitest';
import { DATASET_NAMES, DATASETS, getDataset, isDatasetName, parseDatasetList, type DatasetName } from '../../src/datasets/index.js';
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
