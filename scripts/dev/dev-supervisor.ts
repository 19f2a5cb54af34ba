import type { StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, type Sandbox } from '@open-finance-gateway/sandbox';
import { ensurePortFree, portSetting } from '../lib/ports.js';
import { devRedis, loadDevSecrets, type DevRedis } from './dev-state.js';
import { createGatewayProcess, type RunningGateway } from './gateway-process.js';
import { startTscWatch, type TscWatch } from './tsc-watch.js';

export interface DevSupervisorOptions {
  /** The repository: dist/main.js and tsconfig.build.json are found here. */
  root: string;
  /** Dev secrets and the private Redis's append-only file (`.dev/`, gitignored). */
  stateDir: string;
  /** PORT, SANDBOX_*, REDIS_URL, LOG_LEVEL, and any gateway setting to pass on. */
  env: NodeJS.ProcessEnv;
  /** Compile with `tsc --watch` and restart on each clean compile; false: run dist/ as built, restart on `restart()`. */
  watch: boolean;
  /** Where an already running Redis is looked for. @default 6379 */
  redisProbePort?: number;
  /** The supervisor's messages and the compiler's output. @default process.stdout */
  output?: NodeJS.WritableStream;
  /** The gateway's stdin, stdout and stderr. @default 'inherit' */
  gatewayStdio?: StdioOptions;
}

export interface DevSupervisorEvents {
  /** A gateway process listens (the first start too); `compileMs` when a compile caused it. */
  restarted: [RunningGateway & { compileMs?: number }];
}

export interface DevSupervisor {
  readonly sandbox: Sandbox;
  readonly redis: DevRedis;
  /** The gateway's public URL (`http://localhost:$PORT`). */
  readonly url: string;
  readonly events: EventEmitter<DevSupervisorEvents>;
  /** The gateway process now listening, if any. */
  readonly gateway: RunningGateway | undefined;
  /** Resolves with the first gateway process to listen. */
  readonly ready: Promise<RunningGateway>;
  /** Stops the gateway process and starts a new one on dist/ as it is now (restarts in a row coalesce). */
  restart(): Promise<RunningGateway>;
  /** Gateway, compiler, sandbox, then a private Redis: in that order. */
  stop(): Promise<void>;
}

/** The dev gateway listens on loopback only (HOST overrides). */
const DEV_HOST = '127.0.0.1';

/**
 * `npm run dev`: the sandbox once, in this process, on fixed ports, and the gateway as a child
 * pointed at it over HTTP (as compose.yaml runs them), on a Redis with secrets that outlive it. A
 * restart replaces only the gateway process: the sandbox's world, its identity provider's users
 * and the tokens it issued stay, and so do the sessions and bank connections in Redis.
 */
export async function createDevSupervisor(options: DevSupervisorOptions): Promise<DevSupervisor> {
  const { env, root } = options;
  const output = options.output ?? process.stdout;
  const port = portSetting(env, 'PORT', 4000);
  const publicUrl = env.PUBLIC_URL ?? `http://localhost:${port}`;
  const undo: Array<() => Promise<void>> = [];
  let stopped = false;
  const stopAll = async () => {
    // First: a compile finishing now must not start a gateway after the gateway was stopped.
    stopped = true;
    for (const step of undo.splice(0).reverse()) await step();
  };
  try {
    // Before anything starts: a gateway port in use would otherwise show only once all else runs.
    await ensurePortFree(port, 'PORT', env.HOST ?? DEV_HOST);
    const redis = await devRedis(options.stateDir, env.REDIS_URL, options.redisProbePort);
    undo.push(() => redis.stop());
    const secrets = await loadDevSecrets(options.stateDir);
    const sandbox = await startDevSandbox(env, publicUrl, port);
    undo.push(() => sandbox.stop());
    const gatewayEnv: NodeJS.ProcessEnv = {
      // A terminal, not a load balancer: stop at once; GraphiQL needs introspection.
      SHUTDOWN_DELAY_MS: '0',
      GRAPHQL_INTROSPECTION: 'true',
      HOST: DEV_HOST,
      PLATFORM_NAME: 'the platform sandbox',
      REDIS_KEY_PREFIX: 'ofg-dev:',
      ...secrets,
      ...env,
      PORT: String(port),
      REDIS_URL: redis.url,
      ...platformSettings(sandbox),
    };
    const gateway = createGatewayProcess(root, options.gatewayStdio);
    undo.push(() => gateway.close());
    const events = new EventEmitter<DevSupervisorEvents>();
    const restarter = createRestarter(
      () => (stopped ? Promise.reject(new Error('stopped')) : gateway.restart(gatewayEnv)),
      events,
      output,
    );
    let compiler: TscWatch | undefined;
    const ready = new Promise<RunningGateway>((resolve) => events.once('restarted', resolve));
    if (options.watch) {
      compiler = startTscWatch(root, output);
      undo.push(() => compiler!.stop());
      compiler.events.on('finished', ({ errors, ms }) => {
        if (errors === 0) void restarter.restart(ms).catch(() => undefined);
        else
          output.write(
            `  Not restarting: the compile has ${errors} error(s); the running gateway is the last good build.\n`,
          );
      });
    } else void restarter.restart().catch(() => undefined);
    return {
      sandbox,
      redis,
      url: publicUrl,
      events,
      ready,
      get gateway() {
        return gateway.current;
      },
      restart: () => restarter.restart(),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The standalone sandbox's settings (SANDBOX_*), with throwaway credentials for this run. */
async function startDevSandbox(env: NodeJS.ProcessEnv, publicUrl: string, port: number): Promise<Sandbox> {
  const secret = (length: number) => randomBytes(length).toString('base64url');
  const sandbox = createSandbox({
    logger: createLogger({ level: env.SANDBOX_LOG_LEVEL ?? 'warn', service: 'platform-sandbox' }),
    headerPrefix: env.PLATFORM_HEADER_PREFIX ?? 'X-Service',
    host: env.SANDBOX_HOST ?? '127.0.0.1',
    corePort: Number(env.SANDBOX_CORE_PORT ?? 4010),
    enrichmentPort: Number(env.SANDBOX_ENRICHMENT_PORT ?? 4011),
    identityPort: Number(env.SANDBOX_IDENTITY_PORT ?? 4012),
    // The same demo users (and their ids, which sessions name) on every start.
    identitySeed: env.SANDBOX_SEED ?? 'open-finance-sandbox',
    credentials: {
      appToken: `app_token_${secret(18)}`,
      appSecret: secret(24),
      enrichmentKey: `genie_token_${secret(18)}`,
    },
    redirectUris: [`${publicUrl}/auth/callback`],
    webhookUrl: `http://127.0.0.1:${port}/webhooks`,
    webhookTimeScale: Number(env.SANDBOX_WEBHOOK_TIME_SCALE ?? 120),
    // The gateway's APP_NAME: the sandbox's consent and sign-in pages name the same app.
    appName: env.APP_NAME,
  });
  await sandbox.start();
  sandbox.identity.registerRedirectUri(`${new URL(publicUrl).origin}/auth/oidc/callback`);
  return sandbox;
}

/** What a gateway needs to use this sandbox: what the standalone sandbox prints. */
function platformSettings(sandbox: Sandbox): NodeJS.ProcessEnv {
  return {
    CORE_API_URL: sandbox.coreUrl,
    ENRICHMENT_API_URL: sandbox.enrichmentUrl,
    OAUTH_AUTHORIZE_URL: sandbox.authorizeUrl,
    APP_TOKEN: sandbox.credentials.appToken,
    APP_SECRET: sandbox.credentials.appSecret,
    ENRICHMENT_API_KEY: sandbox.credentials.enrichmentKey,
    OIDC_ISSUER: sandbox.identity.issuer,
    OIDC_CLIENT_ID: sandbox.identity.clientId,
    OIDC_CLIENT_SECRET: sandbox.identity.clientSecret,
  };
}

/**
 * One restart at a time; asked again while one waits to begin, the same one answers (a burst of
 * saves is one compile for tsc already, and one restart here).
 */
function createRestarter(
  start: () => Promise<RunningGateway>,
  events: EventEmitter<DevSupervisorEvents>,
  output: NodeJS.WritableStream,
) {
  let chain: Promise<unknown> = Promise.resolve();
  let queued: Promise<RunningGateway> | undefined;
  return {
    restart(compileMs?: number): Promise<RunningGateway> {
      if (queued) return queued;
      const next = chain.then(async () => {
        queued = undefined;
        try {
          const running = await start();
          events.emit('restarted', { ...running, compileMs });
          return running;
        } catch (error) {
          if ((error as Error).message === 'stopped') throw error;
          output.write(`  The gateway did not start: ${(error as Error).message}. Fix and save to try again.\n`);
          throw error;
        }
      });
      queued = next;
      chain = next.catch(() => undefined);
      return next;
    },
  };
}
