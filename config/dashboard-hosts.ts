/**
 * `MINTPIPE_DASHBOARD_HOSTS`: the extra names (beyond localhost, 127.0.0.1, [::1] and the bind
 * address) the dashboard answers to in the Host header. A page on another site that rebinds its
 * own name to this machine's address (DNS rebinding) sends its own name, so only listed names are
 * served. Entries are bare names or IP addresses: no scheme, port, path or wildcard.
 */
import { isIP } from 'node:net';
import { ConfigError } from './config-error.js';

const KEY = 'MINTPIPE_DASHBOARD_HOSTS';
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const DNS_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);

/** One entry, lower-cased; an IPv6 address is written in brackets, as a Host header carries it. */
function normalizeEntry(entry: string): string {
  const name = entry.toLowerCase();
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (isIP(bare) === 6) return `[${bare}]`;
  if (bare === name && (isIP(name) === 4 || DNS_NAME.test(name))) return name;
  throw new ConfigError(KEY, `expected a comma-separated list of host names or IP addresses (no scheme, port or wildcard), got "${entry}"`);
}

/** Parses the comma list; empty or unset means no extra names. */
export function parseDashboardHosts(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map(normalizeEntry);
}
