import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptBatches } from '../../src/ops/prompt-batch-reads.js';
import { directReader } from '../../src/ops/warehouse-reader.js';
import { applyMigrations, insertPromptEvents, migrations, openWarehouse, promptOutcomes, type Warehouse } from '../../src/warehouse/index.js';
import { fileTempDir } from '../support/test-env.js';

const dataDir = fileTempDir('wh-chains');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse({ database: 'mintpipe_chains_test', dataDir });
});

afterAll(async () => {
  await wh?.close();
});

describe('prompt outcomes of creates and chains', () => {
  it('shows each prompt kind and chain, and the job a create ended on', async () => {
    await insertPromptEvents(wh, [
      { batchId: 'b1', promptId: 'p1', projectId: 'acme', jobId: '', kind: 'create', chain: 'sdk', status: 'queued', version: 1, prompt: 'start' },
      { batchId: 'b1', promptId: 'p1', projectId: 'acme', jobId: 'agent-1', kind: 'create', chain: 'sdk', status: 'completed', version: 4 },
      { batchId: 'b1', promptId: 'p2', projectId: 'acme', jobId: '', kind: 'message', chain: 'sdk', status: 'skipped', version: 2 },
      { batchId: 'b1', promptId: 'p3', projectId: 'acme', jobId: 'job-3', status: 'cancelled', version: 2 },
    ]);
    const outcomes = await promptOutcomes(wh, 'b1');
    expect(outcomes.map((o) => [o.promptId, o.kind, o.chain, o.jobId, o.status])).toEqual([
      ['p1', 'create', 'sdk', 'agent-1', 'completed'],
      ['p2', 'message', 'sdk', '', 'skipped'],
      ['p3', 'message', null, 'job-3', 'cancelled'],
    ]);
    // The dashboard's batch summary shows each chain's progress.
    const [summary] = (await promptBatches(directReader(wh), { limit: 10 })).filter((b) => b.batchId === 'b1');
    expect(summary!.chains).toEqual([{ chain: 'sdk', projectId: 'acme', jobId: 'agent-1', steps: 2, completed: 1, open: 0, notCompleted: 1, prLinks: [] }]);
    expect(summary!.byStatus).toMatchObject({ completed: 1, skipped: 1, cancelled: 1 });
  });

  it('upgrades a warehouse of the first schema in place: earlier prompts read as messages without chain', async () => {
    const db = 'mintpipe_chains_v1';
    await wh.client.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
    const old: Warehouse = { ...wh, database: db, close: async () => {} };
    await applyMigrations(old, { migrations: migrations.filter((m) => m.version === 1) });
    await wh.client.command({
      query: `INSERT INTO ${db}.prompt_events (batch_id, prompt_id, project_id, job_id, status, polls, version, recorded_at)
              VALUES ('b0', 'old', 'acme', 'job-1', 'completed', 2, 3, now64(3))`,
    });
    expect(await applyMigrations(old)).toContain(3);
    // Through the client: the read-only session only reads the warehouse's own database.
    const rows = await (await wh.client.query({ query: `SELECT prompt_id, job_id, status, kind, chain FROM ${db}.prompt_outcomes`, format: 'JSONEachRow' })).json();
    expect(rows).toEqual([{ prompt_id: 'old', job_id: 'job-1', status: 'completed', kind: 'message', chain: null }]);
    // Applying again changes nothing.
    expect(await applyMigrations(old)).toEqual([]);
  });
});
