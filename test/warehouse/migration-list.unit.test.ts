import { describe, expect, it } from 'vitest';
import { inVersionOrder, migrations } from '../../src/warehouse/migration-list.js';
import type { Migration } from '../../src/warehouse/migration.js';

const migration = (version: number, name = `m${version}`): Migration => ({ version, name, statements: () => [] });

describe('the migration list', () => {
  it('runs 1, 2, 3, … with no gap or twin', () => {
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('sorts by version whatever order the migrations come in', () => {
    expect(inVersionOrder([migration(3), migration(1), migration(2)]).map((m) => m.version)).toEqual([1, 2, 3]);
  });

  it('refuses a migration that claims a version already taken, naming it', () => {
    expect(() => inVersionOrder([migration(1), migration(2), migration(2, 'referrers')])).toThrow(/"referrers" has version 2 where 3 is next/);
  });

  it('refuses a migration that skips a version, naming it', () => {
    expect(() => inVersionOrder([migration(1), migration(2), migration(4, 'referrers')])).toThrow(/"referrers" has version 4 where 3 is next/);
  });

  it('refuses a list that does not start at 1', () => {
    expect(() => inVersionOrder([migration(2)])).toThrow(/version 2 where 1 is next/);
  });
});
