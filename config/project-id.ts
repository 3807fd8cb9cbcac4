/**
 * What a Mintlify project id may be. The published spec types `projectId` as a plain string ("Your
 * project ID", no pattern or length), and it is one path segment of every analytics and agent URL
 * (`/v1/analytics/{projectId}/…`). So the only ids refused are those that cannot stay one segment:
 * empty, `.` and `..` (URL parsing resolves dot segments, even percent-encoded), a slash of either
 * kind (a server or proxy that decodes `%2F` splits the path), control characters, and lengths no
 * real id has. Every input of a project id (CLI flags, MINTPIPE_PROJECTS, job data) asks this.
 */

/** Longer than any project id the dashboard hands out by far. */
export const MAX_PROJECT_ID_LENGTH = 200;

/** Why `id` (already trimmed) cannot be a project id, or null when it can. */
export function projectIdProblem(id: string): string | null {
  if (id === '') return 'project id is empty';
  if (id === '.' || id === '..') return `"${id}" cannot be a project id (not a URL path segment)`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id)) return 'project id contains control characters';
  const shown = id.length > 40 ? `${id.slice(0, 40)}…` : id;
  if (id.length > MAX_PROJECT_ID_LENGTH) return `project id "${shown}" is longer than ${MAX_PROJECT_ID_LENGTH} characters`;
  if (/[/\\]/.test(id)) return `project id "${shown}" contains a slash (it is one segment of the API's URL path)`;
  return null;
}
