/** Why reading a file failed, in the words a one-line error gives the user. */

const PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  ENOTDIR: 'a part of the path is a file, not a directory',
};

/** `no such file`, `is a directory`, `permission denied`, a file inside the path, else the error's code. */
export function readProblem(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'unreadable';
  return PROBLEMS[code] ?? code;
}
