import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { STANDALONE_SETTINGS } from '../../sandbox/src/standalone-settings.js';
import { EXAMPLE_DEFAULT_PORTS } from '../../scripts/lib/example-settings.js';
import { SETTINGS } from '../../src/config/settings.js';
import { freePort, GATEWAY_ENTRY, takenPort } from '../support/instances.js';
import { track } from '../support/leftovers.js';
import { runUntil } from '../support/npm-commands.js';

/** `scripts/example.ts` (what `npm run example` runs once it has built): its exit code and stderr. */
async function runExample(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/example.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group: whatever it may have started goes with it.
    detached: true,
  });
  track(() => {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

const NATIVE_EXAMPLE = ['--import', 'tsx', 'examples/native/src/main.ts'];

describe('the commands side by side on one machine', () => {
  it("npm run example's default ports are apart from npm start's, npm run dev's and the sandbox's", () => {
    const gatewayPort = SETTINGS.find((setting) => setting.name === 'PORT')!;
    const others = [
      (gatewayPort as { default?: number }).default,
      STANDALONE_SETTINGS.SANDBOX_CORE_PORT.default,
      STANDALONE_SETTINGS.SANDBOX_ENRICHMENT_PORT.default,
      STANDALONE_SETTINGS.SANDBOX_IDENTITY_PORT.default,
    ];
    expect(others).toEqual([4000, 4010, 4011, 4012]);
    const example = Object.values(EXAMPLE_DEFAULT_PORTS);
    expect(new Set(example).size).toBe(example.length);
    for (const port of example) expect(others).not.toContain(port);
  });

  it.each(['EXAMPLE_GATEWAY_PORT', 'EXAMPLE_WEB_PORT'])(
    'npm run example names %s when its port is taken, before starting anything',
    async (setting) => {
      const ports = { EXAMPLE_GATEWAY_PORT: String(await freePort()), EXAMPLE_WEB_PORT: String(await freePort()) };
      const taken = await takenPort();
      const result = await runExample({ ...ports, [setting]: String(taken) });
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `example failed to start: port ${taken} is in use by another program: set ${setting} to a free port`,
      );
    },
    30_000,
  );

  it("npm run example:native runs as the quick start's banner prints it, against that gateway", async () => {
    const [, command] = await runUntil(
      process.execPath,
      [GATEWAY_ENTRY],
      { ...process.env, PORT: '0' },
      /Native example: (.+)\n/,
    );
    const env = Object.fromEntries([...command!.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]));
    expect(Object.keys(env)).toEqual(['ISSUER', 'GATEWAY_URL']);
    expect(command).toMatch(/ npm run example:native$/);
    await runUntil(
      process.execPath,
      NATIVE_EXAMPLE,
      { ...process.env, ...env },
      /Open this in your browser \(sign-in\)/,
    );
  }, 30_000);

  it('npm run example:native names GATEWAY_URL when no gateway answers there, before the sign-in', async () => {
    const gatewayUrl = `http://localhost:${await freePort()}`;
    const env = { ...process.env, ISSUER: 'http://127.0.0.1:9', GATEWAY_URL: gatewayUrl };
    const failed = runUntil(process.execPath, NATIVE_EXAMPLE, env, /never printed/);
    await expect(failed).rejects.toThrow(
      `native example failed: no gateway answers at ${gatewayUrl}: start one (npm start), or set GATEWAY_URL`,
    );
  }, 30_000);
});
