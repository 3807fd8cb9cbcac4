import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSeededArchived, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../support/run-cli.js';
import { promptTestEnv } from '../support/prompts-stack.js';
import { seedWarehouse } from '../support/warehouse-template.js';
import { fileTempDir } from '../support/test-env.js';

const SEED = 42;
let emulator: RunningEmulator;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, seed: SEED, agentTimeMs: 50 });
  dir = fileTempDir('from-query');
  env = promptTestEnv({ MINTLIFY_API_URL: emulator.url, MINTPIPE_DATA_DIR: seedWarehouse(join(dir, 'data')), LOG_LEVEL: 'warn' });
});

afterAll(async () => {
  await emulator?.close();
});

function archivedJob(project: string): string {
  for (let n = 1; ; n++) if (isSeededArchived(SEED, project, `job-${n}`)) return `job-${n}`;
}

const creates = (project: string) => emulator.creates.filter((c) => c.projectId === project).map((c) => c.prompt);

describe('prompts send --from-query', () => {
  it('sends each row of a query once per key: a dry run sends nothing, a second run skips the sent key, --dedupe-days 0 sends it again', async () => {
    const sql = "SELECT 'fq' AS projectId, 'Fix the quickstart' AS prompt, 'fq:quickstart' AS key";
    const dry = await runCli(['prompts', 'send', '--from-query', sql, '--allow-create', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('dry run: 1 prompt(s) would be sent');
    expect(dry.stdout).toContain('key fq:quickstart');
    expect(creates('fq')).toEqual([]);

    const sent = await runCli(['prompts', 'send', '--from-query', sql, '--allow-create', '--wait', '--format', 'json'], env);
    expect(sent.code, sent.stderr).toBe(0);
    expect(creates('fq')).toEqual(['Fix the quickstart']);
    const ledger = await runCli(['query', "SELECT DISTINCT key FROM prompt_events WHERE project_id = 'fq'", '--format', 'json'], env);
    expect(JSON.parse(ledger.stdout)).toEqual([{ key: 'fq:quickstart' }]);

    // Another text under the same key is the same prompt: not sent again.
    const again = await runCli(['prompts', 'send', '--from-query', sql.replace('Fix the quickstart', 'Fix the quickstart page'), '--allow-create', '--wait'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/row 1: not sent: key "fq:quickstart": already sent by batch [0-9a-f]{16}/);
    expect(creates('fq')).toHaveLength(1);

    const late = await runCli(['prompts', 'send', '--from-query', sql, '--allow-create', '--dedupe-days', '0', '--wait'], env);
    expect(late.code, late.stderr).toBe(0);
    expect(creates('fq')).toHaveLength(2);
  });

  it('a key whose prompt was refused before it was sent goes again; rows without a key keep the file rules', async () => {
    const job = archivedJob('fr');
    const sql = `SELECT 'fr' AS projectId, '${job}' AS jobId, 'to an archived job' AS prompt, 'fr:archived' AS key`;
    const first = await runCli(['prompts', 'send', '--from-query', sql, '--wait', '--format', 'json'], env);
    expect(first.code).toBe(1);
    const batch1 = (JSON.parse(first.stdout) as { batchId: string; prompts: Array<{ status: string }> });
    expect(batch1.prompts.map((p) => p.status)).toEqual(['rejected']);
    const second = await runCli(['prompts', 'send', '--from-query', sql, '--wait', '--format', 'json'], env);
    const batch2 = JSON.parse(second.stdout) as { batchId: string; prompts: Array<{ status: string }> };
    expect(second.stderr).not.toContain('not sent');
    expect(batch2.batchId).not.toBe(batch1.batchId);
    expect(batch2.prompts.map((p) => p.status)).toEqual(['rejected']);

    const unkeyed = "SELECT 'fu' AS projectId, 'no key here' AS prompt";
    expect((await runCli(['prompts', 'send', '--from-query', unkeyed, '--allow-create', '--wait'], env)).code).toBe(0);
    const repeat = await runCli(['prompts', 'send', '--from-query', unkeyed, '--allow-create'], env);
    expect(repeat.stdout).toContain('0 new, 1 already submitted');
    expect(creates('fu')).toEqual(['no key here']);
  });

  it('reports bad rows as "query row N" and sends the good ones (exit 2); refuses a writing statement and a missing file (exit 2)', async () => {
    const path = join(dir, 'rows.sql');
    writeFileSync(path, "SELECT 'fb' AS projectId, arrayJoin(['good one', '']) AS prompt, NULL AS jobId");
    const mixed = await runCli(['prompts', 'send', '--from-query-file', path, '--allow-create', '--wait'], env);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain(`${path} row 2: prompt: empty`);
    expect(creates('fb')).toEqual(['good one']);

    const write = await runCli(['prompts', 'send', '--from-query', 'INSERT INTO prompt_events (batch_id) VALUES (1)', '--dry-run'], env);
    expect(write.code).toBe(2);
    expect(write.stderr.trim().split('\n')).toHaveLength(1);
    const missing = await runCli(['prompts', 'send', '--from-query-file', join(dir, 'nope.sql')], env);
    expect([missing.code, missing.stderr.trim()]).toEqual([2, `mintpipe: ${join(dir, 'nope.sql')}: cannot read the query file (no such file)`]);
    const both = await runCli(['prompts', 'send', path, '--from-query', 'SELECT 1'], env);
    expect(both.code).toBe(2);
    const dedupeOfAFile = await runCli(['prompts', 'send', path, '--dedupe-days', '3'], env);
    expect([dedupeOfAFile.code, dedupeOfAFile.stderr.trim()]).toEqual([2, 'mintpipe: prompts send: --dedupe-days goes with --from-query (a file sent before is not sent again unless --force)']);
  });

  it('refuses a query file that is a directory, or not UTF-8, in one line in the words used for a prompt file (exit 2), running nothing', async () => {
    const folder = join(dir, 'folder.sql');
    mkdirSync(folder, { recursive: true });
    const latin1 = join(dir, 'latin1.sql');
    writeFileSync(latin1, Buffer.from("SELECT 'fb' AS projectId, 'caf\xe9' AS prompt", 'latin1'));
    const folderRun = await runCli(['prompts', 'send', '--from-query-file', folder, '--dry-run'], env);
    const latin1Run = await runCli(['prompts', 'send', '--from-query-file', latin1, '--allow-create', '--dry-run'], env);
    expect([folderRun.code, folderRun.stderr]).toEqual([2, `mintpipe: ${folder}: cannot read the query file (is a directory)\n`]);
    expect([latin1Run.code, latin1Run.stderr, latin1Run.stdout]).toEqual([2, `mintpipe: ${latin1}: not UTF-8 text (an invalid byte sequence on line 1): save the query file as UTF-8\n`, '']);
  });
});
