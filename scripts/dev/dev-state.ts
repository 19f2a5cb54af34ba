import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { answersPing, startRedisServer, type LocalRedis } from '../lib/redis-server.js';

/** The gateway's secrets for development: made once, kept in the state directory, never committed. */
export interface DevSecrets {
  SESSION_SECRET: string;
  TOKEN_ENCRYPTION_KEYS: string;
}

/**
 * Reads the dev secrets from `<stateDir>/secrets.json`, or makes and writes them (owner-only).
 * Kept rather than random per start: a restarted gateway must verify the cookies and decrypt the
 * bank tokens the previous one wrote.
 */
export async function loadDevSecrets(stateDir: string): Promise<DevSecrets> {
  const file = join(stateDir, 'secrets.json');
  try {
    const stored = JSON.parse(await readFile(file, 'utf8')) as Partial<DevSecrets>;
    if (stored.SESSION_SECRET && stored.TOKEN_ENCRYPTION_KEYS) return stored as DevSecrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secrets: DevSecrets = {
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOKEN_ENCRYPTION_KEYS: `dev1:${randomBytes(32).toString('base64')}`,
  };
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

export interface DevRedis extends LocalRedis {
  /** Where it came from, for the banner. */
  origin: 'REDIS_URL' | 'local' | 'private';
}

/**
 * The dev gateway's Redis: `REDIS_URL` when set, else the server answering at 127.0.0.1:`probePort`
 * (6379), else a private `redis-server` with an append-only file in `<stateDir>/redis`, so a full
 * restart of the dev loop keeps sessions and bank connections too.
 */
export async function devRedis(stateDir: string, redisUrl: string | undefined, probePort = 6379): Promise<DevRedis> {
  if (redisUrl) return { url: redisUrl, origin: 'REDIS_URL', stop: async () => undefined };
  if (await answersPing(probePort))
    return { url: `redis://127.0.0.1:${probePort}`, origin: 'local', stop: async () => undefined };
  const dataDir = join(stateDir, 'redis');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const server = await startRedisServer({
    dataDir,
    detached: true,
    purpose: `npm run dev keeps sessions in Redis: none answers at 127.0.0.1:${probePort} and REDIS_URL is unset (install redis-server or set REDIS_URL)`,
  });
  return { ...server, origin: 'private' };
}
