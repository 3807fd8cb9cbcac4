import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { configRefusal as refusal } from '../support/config-refusal.js';

describe('MINTPIPE_REEXPORT_DAYS', () => {
  it('takes a default and per-dataset days', () => {
    expect(loadConfig({ MINTPIPE_REEXPORT_DAYS: '5, feedback=30' }).export.reexportDays).toEqual({ default: 5, feedback: 30 });
  });

  it.each([
    ['a dataset given twice', 'feedback=30,feedback=2', 'MINTPIPE_REEXPORT_DAYS: feedback is given twice (30 and 2): give it once'],
    ['the default given twice', '3,5', 'MINTPIPE_REEXPORT_DAYS: the default is given twice (3 and 5): give it once'],
  ])('refuses %s instead of keeping the last one in silence', (_what, value, message) => {
    expect(refusal({ MINTPIPE_REEXPORT_DAYS: value }).message).toBe(message);
  });
});
