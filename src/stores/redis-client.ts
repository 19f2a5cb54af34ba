import { Redis } from 'ioredis';
import type { Logger } from '../lib/logger.js';
import { StoreUnavailableError } from '../lib/store-unavailable.js';

export interface RedisClientOptions {
  url: string;
  commandTimeoutMs: number;
  logger: Logger;
  /** For logs: 'commands', 'subscriber', 'events'. */
  role: string;
  /** For a connection that blocks (XREAD BLOCK): no per-command timeout. */
  blocking?: boolean;
}

/**
 * An ioredis connection with the defaults a request path needs: every command bounded by
 * `commandTimeoutMs`, no offline queue (while disconnected a command fails at once rather than
 * waiting), one retry per request, and reconnection forever in the background with capped backoff.
 */
export function createRedisClient(options: RedisClientOptions): Redis {
  const client = new Redis(options.url, {
    lazyConnect: true,
    commandTimeout: options.blocking ? undefined : options.commandTimeoutMs,
    connectTimeout: Math.max(options.commandTimeoutMs, 2_000),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
    connectionName: `ofg-${options.role}`,
  });
  let wasReady = false;
  client.on('ready', () => {
    if (wasReady) options.logger.info({ role: options.role }, 'redis connection restored');
    wasReady = true;
  });
  client.on('close', () => {
    if (wasReady) options.logger.warn({ role: options.role }, 'redis connection lost');
  });
  client.on('error', (error: Error) => options.logger.warn({ role: options.role, err: { message: error.message } }, 'redis connection error'));
  return client;
}

/** Runs a store operation, turning any Redis failure into StoreUnavailableError. */
export async function storeCall<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(error);
  }
}

/** EXEC of a MULTI, failing if the transaction or any command in it failed (ioredis reports per command). */
export async function execAll(multi: { exec(): Promise<Array<[Error | null, unknown]> | null> }): Promise<unknown[]> {
  const results = await multi.exec();
  if (results === null) throw new StoreUnavailableError('transaction aborted');
  const failed = results.find(([error]) => error !== null);
  if (failed) throw new StoreUnavailableError(failed[0]);
  return results.map(([, value]) => value);
}
