import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { takenPort } from '../support/instances.js';
import { track } from '../support/leftovers.js';

/** Starts `node sandbox/dist/main.js` on free ports and returns the settings it prints. */
async function standalone(seed: string): Promise<Record<string, string>> {
  const child = spawn(process.execPath, ['sandbox/dist/main.js'], {
    env: {
      ...process.env,
      SANDBOX_SEED: seed,
      SANDBOX_CORE_PORT: '0',
      SANDBOX_IDENTITY_PORT: '0',
      SANDBOX_ENRICHMENT_PORT: '0',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  track(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  let output = '';
  await new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/SESSION_SECRET=\S+/.test(output)) resolve();
    }),
  );
  return Object.fromEntries([...output.matchAll(/^\s+([A-Z_]+)=(\S+)$/gm)].map((match) => [match[1]!, match[2]!]));
}

describe('the standalone sandbox', () => {
  it('prints settings that start a gateway, with credentials stable for a seed', async () => {
    const first = await standalone('seed-one');
    expect(Object.keys(first).sort()).toEqual([
      'APP_SECRET',
      'APP_TOKEN',
      'CORE_API_URL',
      'ENRICHMENT_API_KEY',
      'ENRICHMENT_API_URL',
      'GRAPHQL_INTROSPECTION',
      'OAUTH_AUTHORIZE_URL',
      'OIDC_CLIENT_ID',
      'OIDC_CLIENT_SECRET',
      'OIDC_ISSUER',
      'SESSION_SECRET',
    ]);
    // Everything a gateway needs with real upstream URLs: its configuration check passes.
    // …and it serves GraphiQL, as a gateway on the embedded sandbox does.
    expect(loadConfig(first).graphql).toMatchObject({ introspection: true, graphiql: true });
    const again = await standalone('seed-one');
    const other = await standalone('seed-two');
    for (const key of ['APP_TOKEN', 'APP_SECRET', 'ENRICHMENT_API_KEY', 'SESSION_SECRET', 'OIDC_CLIENT_SECRET']) {
      expect(again[key], key).toBe(first[key]);
      expect(other[key], key).not.toBe(first[key]);
    }
  });

  it('refuses a mistyped setting at start: one line naming it, and a non-zero exit', async () => {
    const child = spawn(process.execPath, ['sandbox/dist/main.js'], {
      env: { ...process.env, SANDBOX_CORE_PORT: 'abc', SANDBOX_IDENTITY_PORT: '0', SANDBOX_ENRICHMENT_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(() => void child.kill('SIGKILL'));
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(78);
    expect(stdout).toBe('');
    const lines = stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\bSANDBOX_CORE_PORT must be a port from 0 to 65535\b/);
    expect(lines[0]).not.toMatch(/SANDBOX_(IDENTITY|ENRICHMENT)_PORT/);
  });
});

describe('the standalone sandbox beside another program on one of its ports', () => {
  it.each(['SANDBOX_CORE_PORT', 'SANDBOX_ENRICHMENT_PORT', 'SANDBOX_IDENTITY_PORT'])(
    'exits with one line naming %s when that port is taken',
    async (setting) => {
      const port = await takenPort('127.0.0.1');
      const ports = { SANDBOX_CORE_PORT: '0', SANDBOX_ENRICHMENT_PORT: '0', SANDBOX_IDENTITY_PORT: '0' };
      const child = spawn(process.execPath, ['sandbox/dist/main.js'], {
        env: { ...process.env, ...ports, [setting]: String(port), LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      track(() => void child.kill('SIGKILL'));
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(1);
      expect(stderr.trim()).toBe(
        `sandbox failed to start: port ${port} is in use by another program: set ${setting} to a free port`,
      );
    },
  );
});
