import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadDevSecrets } from '../../scripts/dev/dev-state.js';
import { createDevSupervisor } from '../../scripts/dev/dev-supervisor.js';
import { compileSignal } from '../../scripts/dev/tsc-watch.js';
import { freePort } from '../../scripts/lib/redis-server.js';
import type { Browser } from '../support/browser.js';
import { signIn } from '../support/gateway.js';
import { takenPort } from '../support/instances.js';
import { track } from '../support/leftovers.js';

async function stateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ofg-dev-loop-'));
  track(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function whoAmI(browser: Browser, url: string) {
  const answer = await browser.request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ me { id } connection { connected } accounts { id } }' }),
  });
  return {
    status: answer.status,
    ...(JSON.parse(answer.text) as {
      data?: { me: { id: string }; connection: { connected: boolean }; accounts: Array<{ id: string }> };
    }),
  };
}

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

describe('the dev loop (npm run dev)', () => {
  it('keeps a signed-in user and their bank connection across a gateway restart, on its own Redis', async () => {
    const port = await freePort();
    const supervisor = await createDevSupervisor({
      root: process.cwd(),
      stateDir: await stateDir(),
      // dist/ as the suite built it, restarted on demand: a test must not rebuild the checkout.
      watch: false,
      // Nothing answers there, so it starts its private redis-server with an append-only file.
      redisProbePort: await freePort(),
      env: {
        PORT: String(port),
        SANDBOX_CORE_PORT: '0',
        SANDBOX_ENRICHMENT_PORT: '0',
        SANDBOX_IDENTITY_PORT: '0',
        LOG_LEVEL: 'warn',
      },
      output: quiet(),
      gatewayStdio: 'ignore',
    });
    track(() => supervisor.stop());
    expect(supervisor.redis.origin).toBe('private');
    const first = await supervisor.ready;
    expect(supervisor.url).toBe(`http://localhost:${port}`);

    const browser = await signIn(supervisor);
    const before = await whoAmI(browser, supervisor.url);
    expect(before.status).toBe(200);
    expect(before.data?.connection.connected).toBe(true);
    const tokensBefore = supervisor.sandbox.issuedTokens().length;

    const second = await supervisor.restart();
    expect(second.pid).not.toBe(first.pid);
    expect(supervisor.gateway?.pid).toBe(second.pid);
    expect((await fetch(`${supervisor.url}/healthz`)).status).toBe(200);

    // The same cookie, read by the new process: same user, still connected, no new consent.
    const after = await whoAmI(browser, supervisor.url);
    expect(after.status).toBe(200);
    expect(after.data?.me.id).toBe(before.data?.me.id);
    expect(after.data?.connection.connected).toBe(true);
    expect(after.data?.accounts.map((account) => account.id)).toEqual(
      before.data?.accounts.map((account) => account.id),
    );
    expect(supervisor.sandbox.issuedTokens()).toHaveLength(tokensBefore);
  }, 30_000);

  it.each(['PORT', 'SANDBOX_CORE_PORT'])(
    'refuses to start, naming %s, when that port is taken by another program',
    async (setting) => {
      const taken = await takenPort('127.0.0.1');
      const ports = { PORT: String(await freePort()), SANDBOX_CORE_PORT: '0' };
      const started = createDevSupervisor({
        root: process.cwd(),
        stateDir: await stateDir(),
        watch: false,
        redisProbePort: await freePort(),
        env: {
          ...ports,
          [setting]: String(taken),
          SANDBOX_ENRICHMENT_PORT: '0',
          SANDBOX_IDENTITY_PORT: '0',
          LOG_LEVEL: 'warn',
        },
        output: quiet(),
        gatewayStdio: 'ignore',
      });
      track(async () => (await started.catch(() => undefined))?.stop());
      await expect(started).rejects.toThrow(
        `port ${taken} is in use by another program: set ${setting} to a free port`,
      );
    },
    30_000,
  );

  it('makes the dev secrets once, owner-only, and reads the same ones back', async () => {
    const dir = await stateDir();
    const made = await loadDevSecrets(dir);
    expect(made.SESSION_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(made.TOKEN_ENCRYPTION_KEYS).toMatch(/^dev1:[A-Za-z0-9+/]{43}=$/);
    expect(await loadDevSecrets(dir)).toEqual(made);
    expect((await stat(join(dir, 'secrets.json'))).mode & 0o777).toBe(0o600);
  });

  it('restarts only on a compile that tsc reports clean, reading its watch status lines', () => {
    expect(compileSignal('02:21:36 PM - File change detected. Starting incremental compilation...')).toEqual({
      kind: 'started',
    });
    expect(compileSignal('\u001b[90m2:21:39 PM\u001b[0m - Found 0 errors. Watching for file changes.')).toEqual({
      kind: 'finished',
      errors: 0,
    });
    expect(compileSignal('02:21:39 PM - Found 1 error. Watching for file changes.')).toEqual({
      kind: 'finished',
      errors: 1,
    });
    expect(compileSignal("src/app.ts(3,1): error TS2304: Cannot find name 'x'.")).toBeUndefined();
  });
});
