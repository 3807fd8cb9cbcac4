/**
 * Where the dashboard may listen. It shows queues and warehouse data and can retry or remove jobs,
 * so anything but loopback needs a token: refused at start, before anything listens.
 */
import { UsageError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.trim().toLowerCase());
}

/** Throws a UsageError when `host` is not loopback and no token is set. */
export function assertBindAllowed(host: string, token: string | undefined, setting = 'MINTPIPE_DASHBOARD_HOST'): void {
  if (isLoopbackHost(host) || (token !== undefined && token !== '')) return;
  throw new UsageError(
    `${setting}: the dashboard binds to "${host}", which is reachable from other machines; ` +
      'set MINTPIPE_DASHBOARD_TOKEN (a long random string) to require it, or bind to 127.0.0.1',
  );
}
