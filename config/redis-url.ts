/**
 * `REDIS_URL` forms: one server (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS) or
 * a Redis Cluster (`redis+cluster://[user:password@]host1:7000,host2:7001`, `rediss+cluster://`
 * for TLS), where the hosts are seed nodes: the client learns the rest of the cluster from them.
 * WHATWG URLs cannot hold a host list, so the cluster form is parsed here.
 */
export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisTarget {
  cluster: boolean;
  tls: boolean;
  /** One node for a single server; the seed nodes of a cluster; none for a socket. */
  nodes: RedisNode[];
  /** A Unix socket's path instead of nodes (the private server; never parsed from REDIS_URL). */
  socket?: string;
  username?: string;
  password?: string;
  /** Database number (single server only). @default 0 */
  db: number;
}

const CLUSTER_FORM = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;

/** The target of a REDIS_URL, or a reason it is not one (never repeating a password). */
export function parseRedisUrl(raw: string): RedisTarget | { problem: string } {
  const cluster = CLUSTER_FORM.exec(raw.trim());
  if (cluster) {
    const [, scheme, auth, hosts] = cluster;
    const nodes: RedisNode[] = [];
    for (const part of hosts!.split(',')) {
      const node = parseNode(part.trim());
      if (!node) return { problem: `cluster node "${part.trim()}" is not host:port` };
      nodes.push(node);
    }
    return { cluster: true, tls: scheme === 'rediss', nodes, db: 0, ...credentials(auth) };
  }
  if (/^rediss?\+cluster:/.test(raw.trim())) return { problem: 'expected redis+cluster://host1:port1,host2:port2' };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { problem: 'not a URL' };
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    return { problem: `expected redis:, rediss:, redis+cluster: or rediss+cluster: URL, got ${url.protocol}` };
  }
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) return { problem: `database "${db}" is not a number` };
  return {
    cluster: false,
    tls: url.protocol === 'rediss:',
    nodes: [{ host: url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1', port: url.port ? Number(url.port) : 6379 }],
    db: db === '' ? 0 : Number(db),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** Where a target points, without credentials: for messages and logs. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.socket !== undefined) return `unix:${target.socket}`;
  const scheme = `${target.tls ? 'rediss' : 'redis'}${target.cluster ? '+cluster' : ''}`;
  return `${scheme}://${target.nodes.map(formatNode).join(',')}${target.db !== 0 ? `/${target.db}` : ''}`;
}

export function formatNode(node: RedisNode): string {
  return `${node.host.includes(':') ? `[${node.host}]` : node.host}:${node.port}`;
}

function parseNode(text: string): RedisNode | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

function credentials(auth: string | undefined): { username?: string; password?: string } {
  if (!auth) return {};
  const colon = auth.indexOf(':');
  const username = decodeURIComponent(colon === -1 ? auth : auth.slice(0, colon));
  const password = colon === -1 ? '' : decodeURIComponent(auth.slice(colon + 1));
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}
