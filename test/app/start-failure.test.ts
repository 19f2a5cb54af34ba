import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { freePort, GATEWAY_ENTRY, takenPort } from '../support/instances.js';
import { tokenKeysSetting } from '../support/redis.js';

/** Runs the gateway's entry point and returns its exit code and stderr. */
async function run(env: Record<string, string>): Promise<{ code: number | null; stderr: string; elapsed: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [GATEWAY_ENTRY], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr, elapsed: performance.now() - started };
}

describe('a start that fails', () => {
  it('exits with one clear line when Redis is unreachable, leaving nothing running', async () => {
    const port = await freePort();
    const result = await run({
      PORT: '0',
      REDIS_URL: `redis://127.0.0.1:${port}`,
      TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^gateway failed to start: could not reach Redis \(standalone redis:\/\/127\.0\.0\.1:\d+, REDIS_URL\)/,
      ),
    ]);
    expect(result.elapsed).toBeLessThan(15_000); // it exited: the embedded sandbox it had started was stopped
  }, 20_000);

  it('exits with one clear line naming PORT when the port is taken, after stopping the sandbox it started', async () => {
    const port = await takenPort('127.0.0.1');
    const result = await run({ PORT: String(port), HOST: '127.0.0.1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `gateway failed to start: port ${port} is in use by another program: set PORT to a free port`,
    ]);
  }, 20_000);

  it('names METRICS_PORT when the metrics port is the one taken', async () => {
    const port = await takenPort('127.0.0.1');
    const result = await run({ PORT: '0', METRICS_PORT: String(port) });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `gateway failed to start: port ${port} is in use by another program: set METRICS_PORT to a free port`,
    );
  }, 20_000);
});
