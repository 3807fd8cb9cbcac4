/**
 * Listening on the address a setting names: a port another process holds (or one this user may
 * not bind) is a runtime condition the user resolves by changing that setting, so it is one line
 * naming the address and the setting, exit 1, and the half-made server is closed. A host that is
 * no address of this machine (or a name that does not resolve) is the input itself: exit 2.
 */
import type { FastifyInstance } from 'fastify';
import { MintpipeError, UsageError } from '../errors.js';

/** The port could not be bound. Exit 1: the input is valid, the machine's state is not. */
export class PortUnavailableError extends MintpipeError {
  override name = 'PortUnavailableError';
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is in use by another process',
  EACCES: 'may not be bound by this user',
};

/** What is wrong with the host when listening on it failed with `code` ("HOST is …"), or undefined when the host is not why. */
export function hostProblem(code: string | undefined): string | undefined {
  if (code === 'EADDRNOTAVAIL') return 'is not an address of this machine';
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME') return 'does not resolve to an address';
  return undefined;
}

/** The remedy for a bad host where the host comes from the setting alone (start, worker). */
export const DEFAULT_HOST_REMEDY = "set MINTPIPE_DASHBOARD_HOST to one of this machine's addresses, such as 127.0.0.1";

export interface ListenRemedies {
  /** The setting to change when the port is taken. */
  port: string;
  /** The setting to change when the host is no address of this machine. */
  host: string;
}

/**
 * `app.listen` on `host:port`; on a refused bind, closes `app` and throws a PortUnavailableError
 * (or a UsageError for the host) saying `what` could not listen and the remedy.
 */
export async function listenOn(app: FastifyInstance, address: { host: string; port: number }, what: string, remedy: ListenRemedies): Promise<void> {
  try {
    await app.listen(address);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const ofHost = hostProblem(code);
    const reason = REASONS[code ?? ''];
    if (reason === undefined && ofHost === undefined) throw err;
    await app.close();
    const shown = address.host.includes(':') ? `[${address.host}]` : address.host;
    const where = `${what} cannot listen on ${shown}:${address.port}`;
    if (ofHost !== undefined) throw new UsageError(`${where}: ${address.host} ${ofHost}; ${remedy.host}`, { cause: err });
    throw new PortUnavailableError(`${where}: the port ${reason}; ${remedy.port}`, { cause: err });
  }
}
