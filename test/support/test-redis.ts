import { answersPing, startRedisServer, type LocalRedis } from '../../scripts/lib/redis-server.js';

export { answersPing };

/**
 * The Redis the suite shares: `TEST_REDIS_URL` when given, else a server already answering at
 * 127.0.0.1:6379, else a private `redis-server` this run starts on a free port. Nothing is kept
 * on disk either way.
 */
export type SuiteRedis = LocalRedis;

export async function suiteRedis(env: NodeJS.ProcessEnv = process.env, defaultPort = 6379): Promise<SuiteRedis> {
  if (env.TEST_REDIS_URL) return { url: env.TEST_REDIS_URL, stop: async () => undefined };
  if (await answersPing(defaultPort)) return { url: `redis://127.0.0.1:${defaultPort}`, stop: async () => undefined };
  return startRedisServer({
    purpose:
      'the tests need Redis: none answers at 127.0.0.1:6379, TEST_REDIS_URL is unset (install redis-server or set TEST_REDIS_URL)',
  });
}
