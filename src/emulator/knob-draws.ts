/**
 * The per-window and per-row draws behind the analytics knobs (shuffle, approximate counts,
 * broken text), all from the window's knob key, so ground truth and the served pages agree and a
 * window serves the same rows in the same order on every page.
 */
import { createRandom, hash2, hashNumbers, hashString, unitFloat } from './seeded-random.js';

const SHUFFLE_SALT = 0x5f1e;
const APPROXIMATE_SALT = 0xa99;
const TEXT_SALT = 0x7e47;

/** The key of one (seed, dataset, project, window, revision): every knob draw of the window starts here. */
export function knobKey(seed: number, dataset: string, projectId: string, fromMs: number, toMs: number, revision: number): number {
  return hashNumbers(seed, hashString(dataset), hashString(projectId), fromMs, toMs, revision);
}

/** A seeded permutation of 0 … size-1 (Fisher–Yates), the same for the same key. */
export function seededPermutation(size: number, key: number): Uint32Array {
  const random = createRandom(hash2(key, SHUFFLE_SALT));
  const order = new Uint32Array(size);
  for (let i = 0; i < size; i++) order[i] = i;
  for (let i = size - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const swap = order[i]!;
    order[i] = order[j]!;
    order[j] = swap;
  }
  return order;
}

/** How row `item` of a window is served under `approximateCounts = share`. */
export type Approximation = 'exact' | 'outOfBounds' | 'fractional';

export function approximation(key: number, item: number, share: number): Approximation {
  if (share === 0) return 'exact';
  const u = unitFloat(hash2(hash2(key, APPROXIMATE_SALT), item));
  if (u >= share) return 'exact';
  return u < share / 2 ? 'outOfBounds' : 'fractional';
}

/** Human/AI counts served approximately: a total above human + ai, or half-units (bounds kept). */
export function approximateTraffic<T extends { human: number; ai: number; total: number }>(row: T, how: Approximation): T {
  if (how === 'outOfBounds') return { ...row, total: row.human + row.ai + 1 };
  if (how === 'fractional') return { ...row, human: row.human + 0.5, total: row.total + 0.5 };
  return row;
}

/** Whether text item `item` carries a lone surrogate under `invalidText = share`. */
export function hasInvalidText(key: number, item: number, share: number): boolean {
  return share > 0 && unitFloat(hash2(hash2(key, TEXT_SALT), item)) < share;
}

/** `text` with a lone high surrogate (\ud800) inserted at a drawn position. */
export function withLoneSurrogate(text: string, key: number, item: number): string {
  const at = hash2(hash2(key, TEXT_SALT + 1), item) % (text.length + 1);
  return `${text.slice(0, at)}\ud800${text.slice(at)}`;
}
