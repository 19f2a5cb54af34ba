import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const REDIS = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  TOKEN_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
};

function problemsOf(env: Record<string, string>): Array<{ key: string; problem: string }> {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('the user-data store settings', () => {
  it('follow the other stores unless given: memory on one instance, Redis with REDIS_URL', () => {
    expect(loadConfig({}).userData).toEqual({
      store: 'memory',
      maxAgeMs: 86_400_000,
      retentionMs: 2 * 86_400_000,
      userMaxBytes: 1024 * 1024,
      budgetBytes: 256 * 1024 * 1024,
    });
    expect(loadConfig(REDIS).userData.store).toBe('redis');
    expect(loadConfig({ ...REDIS, USER_DATA_STORE: 'off' }).userData.store).toBe('off');
    expect(loadConfig({ USER_DATA_MAX_AGE_SECONDS: '60' }).userData.maxAgeMs).toBe(60_000);
  });

  it('refuse memory beside Redis (other instances would not hear a webhook), Redis without REDIS_URL, and any for a personal app', () => {
    expect(problemsOf({ ...REDIS, USER_DATA_STORE: 'memory' })).toEqual([
      { key: 'USER_DATA_STORE', problem: expect.stringContaining('cannot be memory with REDIS_URL') },
    ]);
    expect(problemsOf({ USER_DATA_STORE: 'redis' })).toEqual([
      { key: 'USER_DATA_STORE', problem: expect.stringContaining('REDIS_URL is not set') },
    ]);
    expect(loadConfig({ APP_KIND: 'PERSONAL' }).userData.store).toBe('off');
    expect(problemsOf({ APP_KIND: 'PERSONAL', USER_DATA_STORE: 'memory' })).toEqual([
      { key: 'USER_DATA_STORE', problem: expect.stringContaining('receives no webhooks') },
    ]);
    expect(problemsOf({ USER_DATA_STORE: 'disk', USER_DATA_MAX_AGE_SECONDS: '0' }).map((p) => p.key)).toEqual([
      'USER_DATA_STORE',
      'USER_DATA_MAX_AGE_SECONDS',
    ]);
  });

  it('refuse, on Redis, an event retention shorter than the kept data lives (twice USER_DATA_MAX_AGE_SECONDS): events trimmed before the store looked at them would be taken for an earlier version\u2019s', () => {
    expect(problemsOf({ ...REDIS, EVENT_RETENTION_SECONDS: '3600' })).toEqual([
      { key: 'EVENT_RETENTION_SECONDS', problem: expect.stringContaining('twice USER_DATA_MAX_AGE_SECONDS') },
    ]);
    expect(problemsOf({ ...REDIS, EVENT_RETENTION_SECONDS: '3600', USER_DATA_MAX_AGE_SECONDS: '1800' })).toEqual([]);
    expect(problemsOf({ ...REDIS, EVENT_RETENTION_SECONDS: '3600', USER_DATA_STORE: 'off' })).toEqual([]);
    expect(problemsOf({ EVENT_RETENTION_SECONDS: '3600' })).toEqual([]); // memory: one instance, one version
  });
});
