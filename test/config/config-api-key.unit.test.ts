import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { configRefusal as refusal } from '../support/config-refusal.js';

describe('MINTLIFY_API_KEY', () => {
  it('is taken trimmed when it is mint_ and then letters, digits, - and _', () => {
    expect(loadConfig({ MINTLIFY_API_KEY: ' mint_Ab-9_z ' }).api.key).toBe('mint_Ab-9_z');
  });

  it('is refused without the mint_ prefix, saying so', () => {
    expect(refusal({ MINTLIFY_API_KEY: 'sk_live_abcdef' }).message).toBe('MINTLIFY_API_KEY: must be a Mintlify admin key starting with "mint_"');
  });

  it.each([
    ['nothing after the prefix', 'mint_', 'MINTLIFY_API_KEY: nothing follows "mint_": the key was cut short; copy it again'],
    ['a space inside', 'mint_abc def', 'MINTLIFY_API_KEY: holds a character no Mintlify key has (a space) after "mint_"; copy the key again'],
    ['a quote', 'mint_abc"', 'MINTLIFY_API_KEY: holds a character no Mintlify key has (a quote) after "mint_"; copy the key again'],
    ['a line break', 'mint_abc\ndef', 'MINTLIFY_API_KEY: holds a character no Mintlify key has (a line break) after "mint_"; copy the key again'],
    ['another character', 'mint_abc/def', 'MINTLIFY_API_KEY: holds a character no Mintlify key has after "mint_"; copy the key again'],
  ])('with the prefix but %s, says what is wrong, never the key itself', (_what, key, message) => {
    const error = refusal({ MINTLIFY_API_KEY: key });
    expect(error.message).toBe(message);
    expect(error.message).not.toContain('abc');
  });
});
