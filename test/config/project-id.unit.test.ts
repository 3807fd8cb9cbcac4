import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/index.js';
import { projectIdProblem } from '../../config/project-id.js';
import { exportJobDataProblem } from '../../src/export/job-data.js';
import { parseProjectId } from '../../src/export/windows.js';
import { configRefusal } from '../support/config-refusal.js';

describe('a project id', () => {
  it('may be any string that stays one segment of the API URL path', () => {
    for (const id of ['docs', '65a1b2c3d4e5f60718293a4b', 'my-docs_2.0', 'a..b', '.hidden', 'with space', 'ünï', 'a?b#c%d']) expect({ id, problem: projectIdProblem(id) }).toEqual({ id, problem: null });
  });

  it('is refused when it is empty, a dot segment, holds a slash or a control character, or is absurdly long', () => {
    expect(projectIdProblem('')).toBe('project id is empty');
    expect(projectIdProblem('.')).toBe('"." cannot be a project id (not a URL path segment)');
    expect(projectIdProblem('..')).toBe('".." cannot be a project id (not a URL path segment)');
    expect(projectIdProblem('a/b')).toMatch(/^project id "a\/b" contains a slash/);
    expect(projectIdProblem('a\\b')).toMatch(/contains a slash/);
    for (const id of ['a\u0000b', 'a\nb', 'a\u007fb', 'a\u0085b']) expect(projectIdProblem(id)).toBe('project id contains control characters');
    expect(projectIdProblem('x'.repeat(201))).toMatch(/is longer than 200 characters$/);
    expect(projectIdProblem('x'.repeat(200))).toBeNull();
  });

  it('is checked by the same rule on the command line, in MINTPIPE_PROJECTS and in window job data', () => {
    expect(() => parseProjectId(' .. ', '--project')).toThrow('--project: ".." cannot be a project id (not a URL path segment)');
    expect(parseProjectId(' docs ', '--project')).toBe('docs');
    const refused = configRefusal({ MINTPIPE_PROJECTS: 'docs,../admin' });
    expect(refused).toBeInstanceOf(ConfigError);
    expect(refused.message).toMatch(/^MINTPIPE_PROJECTS: project id "..\/admin" contains a slash/);
    const job = { dataset: 'visitors', projectId: '..', dateFrom: '2026-10-01', dateTo: '2026-10-02', kind: 'manual', runId: 'r' };
    expect(exportJobDataProblem(job)).toMatch(/projectId.*cannot be a project id/);
    expect(exportJobDataProblem({ ...job, projectId: 'docs' })).toBeNull();
  });
});
