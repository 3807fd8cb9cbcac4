import { describe, expect, it } from 'vitest';
import { shortenExpected } from '../../src/warehouse/query-errors.js';

describe("the engine's syntax errors", () => {
  it('keep the first few tokens the engine would have taken, and say how many more there were', () => {
    const many = Array.from({ length: 47 }, (_, i) => `T${i}`).join(', ');
    expect(shortenExpected(`failed at position 7 (1): 1. Expected one of: ${many}`)).toBe('failed at position 7 (1): 1. Expected one of: T0, T1, T2, T3, T4, T5, … (41 more)');
  });

  it('keep a list of six whole, and cut one of seven', () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => `T${i}`).join(', ');
    expect(shortenExpected(`x. Expected one of: ${list(6)}`)).toBe(`x. Expected one of: ${list(6)}`);
    expect(shortenExpected(`x. Expected one of: ${list(7)}`)).toBe(`x. Expected one of: ${list(6)}, … (1 more)`);
    // Not the end of the message: left whole rather than cut in the wrong place.
    expect(shortenExpected(`x. Expected one of: ${list(9)}. Then more`)).toBe(`x. Expected one of: ${list(9)}. Then more`);
  });

  it('stay as they are when the list is short or there is none', () => {
    expect(shortenExpected('failed at position 9: x. Expected one of: FROM, WHERE')).toBe('failed at position 9: x. Expected one of: FROM, WHERE');
    expect(shortenExpected('failed at position 8 ((): (1. Unmatched parentheses: (')).toBe('failed at position 8 ((): (1. Unmatched parentheses: (');
  });
});
