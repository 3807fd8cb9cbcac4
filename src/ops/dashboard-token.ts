/**
 * The token that guards the dashboard and a worker's /metrics. MINTPIPE_DASHBOARD_TOKEN when the
 * user sets one; otherwise a generated one (24 random bytes, hex) kept in `<dataDir>/dashboard-token`,
 * 0600 in the private data dir, made on first need and reused after, so a bookmark, a browser
 * cookie or a Prometheus config keeps working across restarts. Without it, any local account could
 * read analytics and job data from 127.0.0.1.
 *
 * A file there that another user could have read (a wider mode, another owner, a symlink) or that
 * holds no token of ours is replaced by a new token, with a warning: asking the user to fix it by
 * hand invites a chmod that keeps a leaked token valid.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { MintpipeError } from '../errors.js';
import { registerSecret } from '../logger.js';
import { createPrivateFile, privateDir, readOwnFile, writePrivateFile, type NarrowingLogger, type OwnFile } from '../private-files.js';

export const DASHBOARD_TOKEN_FILE = 'dashboard-token';
const TOKEN_PATTERN = /^[0-9a-f]{48}$/;

export interface DashboardToken {
  value: string;
  /** `setting`: MINTPIPE_DASHBOARD_TOKEN, chosen by the user; `generated`: kept in `file`. */
  origin: 'setting' | 'generated';
  /** Where a generated token is kept. */
  file?: string;
}

/** The dashboard token file could not be read or written (not a file we can replace, I/O error). */
export class DashboardTokenError extends MintpipeError {
  override name = 'DashboardTokenError';
}

export function dashboardTokenPath(dataDir: string): string {
  return join(dataDir, DASHBOARD_TOKEN_FILE);
}

/** The configured token when set, else the data dir's (made when missing or untrusted). */
export function resolveDashboardToken(options: { configured?: string; dataDir: string; logger?: NarrowingLogger }): DashboardToken {
  const configured = options.configured?.trim();
  if (configured) return { value: configured, origin: 'setting' };
  privateDir(options.dataDir, options.logger);
  const file = dashboardTokenPath(options.dataDir);
  const value = generatedToken(file, options.logger);
  registerSecret(value);
  return { value, origin: 'generated', file };
}

function generatedToken(file: string, logger: NarrowingLogger | undefined): string {
  // Rounds: a round may find another process's file appear or be replaced between read and write.
  for (let round = 0; round < 3; round++) {
    const found = readTokenFile(file);
    if (found.token !== undefined) return found.token;
    const fresh = randomBytes(24).toString('hex');
    try {
      if (found.problem === undefined) {
        if (createPrivateFile(file, `${fresh}\n`)) return fresh;
        continue;
      }
      logger?.warn({ event: 'dashboard_token_replaced', path: file, problem: found.problem }, `${file} ${found.problem}: replaced by a new token`);
      writePrivateFile(file, `${fresh}\n`);
    } catch (err) {
      throw new DashboardTokenError(`${file}: cannot write the dashboard token (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
    }
  }
  throw new DashboardTokenError(`${file}: the dashboard token keeps changing under this process; is another mintpipe replacing it?`);
}

/** The token in `file`; or no token and, when the file exists, why it cannot be trusted. */
function readTokenFile(file: string): { token?: string; problem?: string } {
  let found: OwnFile;
  try {
    found = readOwnFile(file, { othersMay: 'nothing' });
  } catch (err) {
    throw new DashboardTokenError(`${file}: cannot read the dashboard token (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
  }
  if (found.problem !== undefined && found.notAFile) throw new DashboardTokenError(`${file}: not a file (mintpipe keeps the dashboard token there): remove it`);
  if (found.text === undefined) return found.problem === undefined ? {} : { problem: found.problem };
  const token = found.text.trim();
  return TOKEN_PATTERN.test(token) ? { token } : { problem: 'holds no token of mintpipe\'s' };
}
