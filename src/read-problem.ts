/** Why reading a file failed, in the words a one-line error gives the user. */

const PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
};

/** `no such file`, `is a directory`, `permission denied`, else the error's code. */
export function readProblem(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'unreadable';
  return PROBLEMS[code] ?? code;
}
