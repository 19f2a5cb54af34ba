import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.js';
import { track } from './support/leftovers.js';

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
});
