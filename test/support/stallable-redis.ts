import { startGateway, type TestGateway } from './gateway.js';
import { freePort } from './instances.js';
import { track } from './leftovers.js';
import { startRedisServer } from './redis-server.js';
import { tokenKeysSetting } from './redis.js';

/**
 * A redis-server of a test's own (nothing on disk) that the test can freeze (SIGSTOP: the socket
 * stays open, nothing is answered, as in a long fork or a stalled disk), thaw (SIGCONT) or kill.
 * Never the shared Redis.
 */
export interface StallableRedis {
  url: string;
  pause(): void;
  resume(): void;
  kill(): Promise<void>;
}

/** `args`: more redis-server options (`--replicaof host port` for a replica). */
export async function startStallableRedis(args: string[] = []): Promise<StallableRedis> {
  const port = await freePort();
  const { process: child, exited } = await startRedisServer(port, ['--appendonly', 'no', ...args]);
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  track(kill);
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    kill,
  };
}

/**
 * A gateway whose Redis the test can freeze: its commands time out after 300 ms, so a stall shows
 * at once. `env`: more settings.
 */
export async function gatewayOnStallableRedis(
  env: Record<string, string> = {},
): Promise<{ redis: StallableRedis; gateway: TestGateway }> {
  const redis = await startStallableRedis();
  const gateway = await startGateway({
    REDIS_URL: redis.url,
    TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
    REDIS_COMMAND_TIMEOUT_MS: '300',
    ...env,
  });
  return { redis, gateway };
}
