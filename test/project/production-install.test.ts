import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { chooseUpstream, PLATFORM_SETTINGS, SANDBOX_PACKAGE } from '../../src/app/upstream-choice.js';
import { loadConfig } from '../../src/config/config.js';
import { track } from '../support/leftovers.js';

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

function scratchDir(): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-production-'));
  track(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/**
 * A copy of the built gateway whose node_modules has everything but the sandbox package (and its
 * OpenID provider), as a production install has (the next test checks what that installs).
 */
function installWithoutSandbox(): string {
  const root = scratchDir();
  cpSync('dist', join(root, 'dist'), { recursive: true });
  mkdirSync(join(root, 'node_modules', '@open-finance-gateway'), { recursive: true });
  symlinkSync(resolve('common'), join(root, 'node_modules', '@open-finance-gateway', 'common'));
  for (const name of readdirSync('node_modules')) {
    if (name === '@open-finance-gateway' || name === 'oidc-provider' || name === '.bin') continue;
    symlinkSync(resolve('node_modules', name), join(root, 'node_modules', name));
  }
  return root;
}

interface LockEntry {
  version?: string;
  dev?: boolean;
}
const lockfile = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };

/**
 * What npm would add (`name version`, one a package) with these arguments, in a scratch copy of
 * the manifests and the lockfile: a dry run, so nothing is downloaded or written.
 */
async function dryRunInstall(args: string[], prepare: (root: string) => Promise<void> = async () => {}) {
  const root = scratchDir();
  for (const file of ['package.json', 'package-lock.json', 'common/package.json', 'sandbox/package.json']) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    cpSync(file, join(root, file));
  }
  await prepare(root);
  const { stdout } = await run('npm', [...args, '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], root);
  return [...stdout.matchAll(/^add (\S+) (\S+)$/gm)].map(([, name, version]) => ({ name: name!, version: version! }));
}

async function run(command: string, args: string[], cwd: string): Promise<{ stdout: string }> {
  const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`);
  return { stdout };
}

describe('what a production install holds', () => {
  it('a plain `npm ci --omit=dev` adds production packages only: no sandbox, no OpenID provider, no example app tooling', async () => {
    const added = await dryRunInstall(['ci', '--omit=dev']);
    const names = added.map((entry) => entry.name);
    expect(names).toContain('@open-finance-gateway/common');
    expect(names).toContain('@apollo/server');
    expect(names).not.toContain('@open-finance-gateway/sandbox');
    expect(names).not.toContain('oidc-provider');
    // Each package added is one the lockfile holds outside the development tree.
    const devOnly = added.filter(
      ({ name, version }) =>
        !Object.entries(lockfile.packages).some(
          ([path, entry]) => path.endsWith(`node_modules/${name}`) && entry.version === version && !entry.dev,
        ) && name !== '@open-finance-gateway/common',
    );
    expect(devOnly).toEqual([]);
  }, 60_000);

  it("the sandbox image's install (Dockerfile, target sandbox) adds the sandbox and its own dependencies, none of the gateway's", async () => {
    const added = await dryRunInstall(['install', '--omit=dev'], async (root) => {
      await run('npm', ['pkg', 'delete', 'dependencies', 'devDependencies'], root);
      await run('npm', ['pkg', 'set', 'dependencies[@open-finance-gateway/sandbox]=file:sandbox'], root);
    });
    const names = added.map((entry) => entry.name);
    expect(names).toEqual(
      expect.arrayContaining(['@open-finance-gateway/sandbox', '@open-finance-gateway/common', 'oidc-provider']),
    );
    expect(names).not.toContain('@apollo/server');
    expect(names).not.toContain('vite');
    // On the root's lockfile: the OpenID provider at the version development uses.
    expect(added.find((entry) => entry.name === 'oidc-provider')?.version).toBe(
      lockfile.packages['node_modules/oidc-provider']?.version,
    );
  }, 60_000);
});

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
