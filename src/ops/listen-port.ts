/**
 * Listening on the port a setting names: a port another process holds (or one this user may not
 * bind) is a runtime condition the user resolves by changing that setting, so it is one line
 * naming the address and the setting, exit 1, and the half-made server is closed.
 */
import type { FastifyInstance } from 'fastify';
import { MintpipeError } from '../errors.js';

/** The port could not be bound. Exit 1: the input is valid, the machine's state is not. */
export class PortUnavailableError extends MintpipeError {
  override name = 'PortUnavailableError';
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is in use by another process',
  EACCES: 'may not be bound by this user',
  EADDRNOTAVAIL: 'is not an address of this machine',
};

/**
 * `app.listen` on `host:port`; on a refused bind, closes `app` and throws a PortUnavailableError
 * saying `what` could not listen and `remedy` (the setting to change).
 */
export async function listenOn(app: FastifyInstance, address: { host: string; port: number }, what: string, remedy: string): Promise<void> {
  try {
    await app.listen(address);
  } catch (err) {
    const reason = REASONS[(err as NodeJS.ErrnoException).code ?? ''];
    if (reason === undefined) throw err;
    await app.close();
    const shown = address.host.includes(':') ? `[${address.host}]` : address.host;
    throw new PortUnavailableError(`${what} cannot listen on ${shown}:${address.port}: the port ${reason}; ${remedy}`, { cause: err });
  }
}
