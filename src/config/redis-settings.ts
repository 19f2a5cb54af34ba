export type RedisMode = 'standalone' | 'sentinel' | 'cluster';

/** Where Redis is and how to talk to it, for any topology; ioredis options are built from this. */
export interface RedisConnectionSettings {
  mode: RedisMode;
  /** Standalone: the server. Sentinel: the sentinels. Cluster: seed nodes (the rest are discovered). */
  nodes: Array<{ host: string; port: number }>;
  /** For the data nodes (in Sentinel mode too: the sentinels have their own password). */
  username: string | undefined;
  password: string | undefined;
  tls: boolean;
  /** Logical database; always 0 in a Cluster. */
  db: number;
  sentinelMaster: string | undefined;
  sentinelPassword: string | undefined;
  /** Where, without credentials: for logs and errors. */
  where: string;
}

/**
 * REDIS_URL is one `redis://` or `rediss://` URL, or for Sentinel and Cluster a comma-separated
 * list of them (the sentinels, or seed nodes), all with the same scheme and credentials. Returns
 * the settings, or the problem (never quoting the value: it may hold a password).
 */
export function parseRedisUrls(
  raw: string,
  mode: RedisMode,
  sentinelMaster: string | undefined,
  sentinelPassword: string | undefined,
): RedisConnectionSettings | string {
  const urls: URL[] = [];
  for (const part of raw.split(',').map((item) => item.trim())) {
    let url: URL;
    try {
      url = new URL(part);
    } catch {
      return 'must be a redis:// or rediss:// URL (a comma-separated list of them with REDIS_MODE sentinel or cluster)';
    }
    if (!['redis:', 'rediss:'].includes(url.protocol) || !url.hostname)
      return 'must be a redis:// or rediss:// URL (a comma-separated list of them with REDIS_MODE sentinel or cluster)';
    if (url.search || url.hash) return 'must not have a query or fragment';
    urls.push(url);
  }
  const [first] = urls;
  if (!first) return 'must name at least one server';
  if (mode === 'standalone' && urls.length > 1)
    return 'lists several servers: set REDIS_MODE to sentinel or cluster, or give one URL';
  if (
    urls.some(
      (url) =>
        url.protocol !== first.protocol ||
        url.username !== first.username ||
        url.password !== first.password ||
        url.pathname !== first.pathname,
    )
  ) {
    return 'entries must share one scheme, credentials and database';
  }
  const dbText = first.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,2}$/.test(dbText)) return 'database (the path) must be a number';
  const db = dbText === '' ? 0 : Number(dbText);
  if (mode === 'cluster' && db !== 0) return 'a Redis Cluster has only database 0';
  const defaultPort = mode === 'sentinel' ? 26379 : 6379;
  const nodes = urls.map((url) => ({
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : defaultPort,
  }));
  return {
    mode,
    nodes,
    username: first.username ? decodeURIComponent(first.username) : undefined,
    password: first.password ? decodeURIComponent(first.password) : undefined,
    tls: first.protocol === 'rediss:',
    db,
    sentinelMaster,
    sentinelPassword,
    where: `${mode} ${first.protocol}//${urls.map((url) => url.host).join(',')}${mode === 'sentinel' ? ` (${sentinelMaster})` : ''}`,
  };
}
