import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLATFORM_SETTINGS, SANDBOX_PACKAGE, chooseUpstream } from '../src/app/upstream-choice.js';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/lib/logger.js';
import { track } from './support/leftovers.js';

/** What Node throws for `import()` of a package that is not installed. */
function notInstalled(): Promise<never> {
  return Promise.reject(
    Object.assign(
      new Error(`Cannot find package '${SANDBOX_PACKAGE}' imported from /app/dist/app/upstream-choice.js`),
      {
        code: 'ERR_MODULE_NOT_FOUND',
      },
    ),
  );
}

/** A live platform's settings (values as in compose.yaml's trial). */
const LIVE = {
  CORE_API_URL: 'http://platform.internal:4010',
  ENRICHMENT_API_URL: 'http://platform.internal:4011',
  OAUTH_AUTHORIZE_URL: 'http://platform.internal:4010/oauth/authorize',
  APP_TOKEN: 'app_token_production_trial',
  APP_SECRET: 'production_trial_app_secret',
  ENRICHMENT_API_KEY: 'genie_token_production_trial',
  SESSION_SECRET: 'production-trial-session-secret-0123456789abcdef',
  OIDC_ISSUER: 'http://identity:4012',
  OIDC_CLIENT_ID: 'open-finance-gateway',
  OIDC_CLIENT_SECRET: 'production_trial_oidc_secret',
};

/**
 * A copy of the built gateway whose node_modules has everything but the sandbox package (and its
 * OpenID provider): what `npm ci --omit=dev --workspaces=false --include-workspace-root` installs.
 */
function installWithoutSandbox(): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-production-'));
  track(() => rmSync(root, { recursive: true, force: true }));
  cpSync('dist', join(root, 'dist'), { recursive: true });
  mkdirSync(join(root, 'node_modules'));
  for (const name of readdirSync('node_modules')) {
    if (name === '@open-finance-gateway' || name === 'oidc-provider' || name === '.bin') continue;
    symlinkSync(resolve('node_modules', name), join(root, 'node_modules', name));
  }
  return root;
}

describe('a production install (no sandbox package)', () => {
  it('refuses to start without platform settings, naming the settings to give', async () => {
    const undo: Array<() => unknown> = [];
    const logger = createLogger({ level: 'silent' });
    const started = chooseUpstream(loadConfig({}), undefined, logger, Date.now, undo, notInstalled);
    await expect(started).rejects.toThrow(
      `no platform is configured and the embedded sandbox is not installed (a production install leaves it out): set ${PLATFORM_SETTINGS.join(', ')}`,
    );
    expect(undo).toEqual([]);
  });

  it('starts on a live platform without ever loading the sandbox package', async () => {
    let loads = 0;
    const platform = await chooseUpstream(
      loadConfig(LIVE),
      undefined,
      createLogger({ level: 'silent' }),
      Date.now,
      [],
      () => ((loads += 1), notInstalled()),
    );
    expect(loads).toBe(0);
    expect(platform.sandbox).toBeUndefined();
    expect(platform.core.baseUrl).toBe(LIVE.CORE_API_URL);
    expect(platform.identity).toMatchObject({ issuer: LIVE.OIDC_ISSUER, sandbox: false });
  });

  it('does not hide a sandbox package that is installed but broken', async () => {
    const broken = () => Promise.reject(new Error("Cannot find module 'oidc-provider'"));
    const started = chooseUpstream(loadConfig({}), undefined, createLogger({ level: 'silent' }), Date.now, [], broken);
    await expect(started).rejects.toThrow("Cannot find module 'oidc-provider'");
  });

  it('exits non-zero with one line naming the platform settings when run from an install without the sandbox', async () => {
    const root = installWithoutSandbox();
    const child = spawn(process.execPath, [join('dist', 'main.js')], {
      cwd: root,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      `gateway failed to start: no platform is configured and the embedded sandbox is not installed (a production install leaves it out): set ${PLATFORM_SETTINGS.join(', ')}`,
    ]);
  });
});
