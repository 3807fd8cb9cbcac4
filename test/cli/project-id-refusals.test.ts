/**
 * A project id that cannot be one segment of the API's URL path (`..`, `.`, a slash, empty) is
 * refused up front by every command that takes a project, in one line naming `--project` (or
 * MINTPIPE_PROJECTS), exit 2: not accepted, enqueued and failed later at run time.
 */
import { describe, expect, it } from 'vitest';
import { testEnv } from '../support/export-stack.js';
import { runCli } from '../support/run-cli.js';

const RANGE = ['--from', '2026-10-01', '--to', '2026-10-02'];

describe('project ids that cannot be a URL path segment', () => {
  it('export, export --dry-run, export cancel, plan and triage run refuse --project .. in one line, exit 2', async () => {
    const env = testEnv();
    const refusal = 'mintpipe: --project: ".." cannot be a project id (not a URL path segment)\n';
    for (const args of [
      ['export', '--project', '..', ...RANGE],
      ['export', '--project', 'docs,..', '--dry-run', ...RANGE],
      ['export', 'cancel', '--project', '..'],
      ['plan', '--project', '..', ...RANGE],
      ['triage', 'run', 'feedback-hotspots', '--project', '..', '--dry-run'],
    ]) {
      const result = await runCli(args, env);
      expect({ args, code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({ args, code: 2, stderr: refusal, stdout: '' });
    }
  });

  it('export refuses a project id with a slash or an empty one, naming --project', async () => {
    const env = testEnv();
    const slash = await runCli(['export', '--project', 'docs/../admin', ...RANGE], env);
    expect({ code: slash.code, stderr: slash.stderr }).toEqual({ code: 2, stderr: 'mintpipe: --project: project id "docs/../admin" contains a slash (it is one segment of the API\'s URL path)\n' });
    const empty = await runCli(['export', '--project', ' ', ...RANGE], env);
    expect({ code: empty.code, stderr: empty.stderr }).toEqual({ code: 2, stderr: 'mintpipe: --project: project id is empty\n' });
  });

  it('MINTPIPE_PROJECTS with such an id is refused at start of any command, naming the setting', async () => {
    const result = await runCli(['plan', ...RANGE], { ...testEnv(), MINTPIPE_PROJECTS: 'docs,..' });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: 'mintpipe: MINTPIPE_PROJECTS: ".." cannot be a project id (not a URL path segment)\n' });
  });
});
