import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { LOAD_USER_PASSWORD, type Sandbox } from '@open-finance-gateway/sandbox';

/** Helpers for benchmarks: processes under measurement, and what a browser would do. */

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export interface Measured {
  url: string;
  port: number;
  child: ChildProcess;
  /** CPU microseconds so far, event-loop delay p99 since the last measure, heap/RSS bytes after a full collection. */
  measure(): Promise<{
    heapUsed: number;
    /** The heap as sampled without forcing a collection first (garbage included). */
    heapUsedBeforeGc: number;
    rss: number;
    cpuMicros: number;
    loopDelayP99Ms: number;
  }>;
  stop(): Promise<void>;
}

const PROBE = 'bench/support/probe.cjs';

/** Starts `args` under node with the measuring probe; resolves once its stdout shows `ready`. */
export async function startMeasured(args: string[], env: Record<string, string>, ready: string): Promise<Measured> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--expose-gc', '--require', `./${PROBE}`, ...args], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let tail = '';
  let stopping = false;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      // Look before trimming: the start-up line can be followed in the same chunk by a long one.
      const text = tail + chunk.toString();
      if (text.includes(ready)) resolve();
      tail = text.slice(-400);
    });
  });
  child.removeAllListeners('exit');
  // BENCH_LOG_DIR keeps each measured process's whole output, for when a run goes wrong.
  if (process.env.BENCH_LOG_DIR)
    child.stdout!.pipe(
      createWriteStream(join(process.env.BENCH_LOG_DIR, `${args.at(-1)!.replaceAll('/', '_')}-${port}.log`)),
    );
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`${args.join(' ')} exited unexpectedly (${code ?? signal}); last output: ${tail}`);
  });
  // Keep the last lines, and show errors as they come (pino level 50 and up).
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    tail = (tail + text).slice(-2_000);
    for (const line of text.split('\n')) if (/"level":(50|60)/.test(line)) console.error(line.slice(0, 1_000));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    async measure() {
      child.send('measure');
      const [reply] = (await once(child, 'message')) as [
        {
          heapUsed: number;
          heapUsedBeforeGc: number;
          rss: number;
          cpu: { user: number; system: number };
          loopDelayP99Ms: number;
        },
      ];
      return {
        heapUsed: reply.heapUsed,
        heapUsedBeforeGc: reply.heapUsedBeforeGc,
        rss: reply.rss,
        cpuMicros: reply.cpu.user + reply.cpu.system,
        loopDelayP99Ms: reply.loopDelayP99Ms,
      };
    },
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * The built gateway (`node dist/main.js`), at LOG_LEVEL info as in production. `entry`: another
 * build's main (a baseline copied aside, run side by side); `nodeArgs`: e.g. `--cpu-prof`.
 */
export function startGatewayProcess(
  env: Record<string, string>,
  entry = 'dist/main.js',
  nodeArgs: string[] = [],
): Promise<Measured> {
  return startMeasured(
    [...nodeArgs, entry],
    { HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'production', SHUTDOWN_DELAY_MS: '0', ...env },
    '"gateway listening"',
  );
}

/** The floor: node:http + ws that verifies the signature and broadcasts one prepared frame. */
export function startFloorProcess(publicKeyPem: string): Promise<Measured> {
  return startMeasured(
    ['--import', 'tsx', 'bench/support/floor-server.ts'],
    { FLOOR_PUBLIC_KEY: publicKeyPem },
    'floor listening',
  );
}

/** The enrichment floor (bench/support/enrichment-floor.ts): a bare proxy to the sandbox's search. */
export function startEnrichmentFloor(sandbox: Sandbox): Promise<Measured> {
  return startMeasured(
    ['--import', 'tsx', 'bench/support/enrichment-floor.ts'],
    {
      NODE_ENV: 'production',
      ENRICHMENT_URL: sandbox.enrichmentUrl,
      ENRICHMENT_KEY: sandbox.credentials.enrichmentKey,
    },
    'enrichment floor listening',
  );
}

/** A reference BFF (bench/support/reference-bff.ts) in `mode`, against the sandbox, for one user's token. */
export function startReferenceBff(
  mode: 'naive' | 'dataloader',
  sandbox: Sandbox,
  userToken: string,
): Promise<Measured> {
  return startMeasured(
    ['--import', 'tsx', 'bench/support/reference-bff.ts'],
    {
      NODE_ENV: 'production',
      MODE: mode,
      CORE_URL: sandbox.coreUrl,
      ENRICHMENT_URL: sandbox.enrichmentUrl,
      APP_TOKEN: sandbox.credentials.appToken,
      ENRICHMENT_KEY: sandbox.credentials.enrichmentKey,
      USER_TOKEN: userToken,
    },
    'reference bff listening',
  );
}

/** Everything the gateway needs to use a sandbox running in the benchmark's process. */
export function gatewayEnvFor(sandbox: Sandbox, publicUrl: string, sessionSecret: string): Record<string, string> {
  sandbox.identity.registerRedirectUri(`${publicUrl}/auth/oidc/callback`);
  return {
    OIDC_ISSUER: sandbox.identity.issuer,
    OIDC_CLIENT_ID: sandbox.identity.clientId,
    OIDC_CLIENT_SECRET: sandbox.identity.clientSecret,
    CORE_API_URL: sandbox.coreUrl,
    ENRICHMENT_API_URL: sandbox.enrichmentUrl,
    OAUTH_AUTHORIZE_URL: sandbox.authorizeUrl,
    APP_TOKEN: sandbox.credentials.appToken,
    APP_SECRET: sandbox.credentials.appSecret,
    ENRICHMENT_API_KEY: sandbox.credentials.enrichmentKey,
    SESSION_SECRET: sessionSecret,
    PUBLIC_URL: publicUrl,
  };
}

/**
 * Signs an app user in through `via` as a browser would (the identity provider's password and
 * authenticator code, then the consumer information page's way on, the platform's consent and
 * callback), and returns the session cookie and the user's webhook routing state. `userId` picks
 * the platform's user; `appUser` the identity provider's (a demo user, or `load_<n>@load.example`).
 */
export async function signIn(
  publicUrl: string,
  via: { url: string },
  sandbox: Sandbox,
  userId?: string,
  appUser = 'aroha@demo.example',
): Promise<{ cookie: string; state: string; userId: string }> {
  const cookies = new Map<string, string>();
  const go = async (target: string, init: RequestInit = {}) => {
    const url = new URL(target);
    const real = url.origin === publicUrl ? `${via.url}${url.pathname}${url.search}` : target;
    const response = await fetch(real, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const header of response.headers.getSetCookie()) {
      const [name, value] = header.split(';')[0]!.split('=');
      cookies.set(name!, value!);
    }
    await response.arrayBuffer();
    return response;
  };
  const email = appUser;
  const password = sandbox.identity.users.byEmail(email)!.demoSecret ?? LOAD_USER_PASSWORD;
  let hop = await go((await go(`${publicUrl}/auth/login`)).headers.get('location')!);
  const interaction = new URL(hop.headers.get('location')!, sandbox.identity.issuer).href;
  await go(interaction);
  await go(`${interaction}/login`, { method: 'POST', body: new URLSearchParams({ email, secret: password }) });
  hop = await go(`${interaction}/verify`, {
    method: 'POST',
    body: new URLSearchParams({ code: sandbox.identity.currentTotp(email)! }),
  });
  for (let next = hop.headers.get('location'); next && !next.startsWith(publicUrl);) {
    hop = await go(new URL(next, sandbox.identity.issuer).href);
    next = hop.headers.get('location');
  }
  await go(hop.headers.get('location')!);
  // The consumer information page's button (/auth/connect) starts the platform's flow.
  const authorize = new URL((await go(`${publicUrl}/auth/connect`)).headers.get('location')!);
  const form = new URLSearchParams(authorize.searchParams);
  const chosen = userId ?? /name="user" value="([^"]+)"/.exec(await (await fetch(authorize.href)).text())![1]!;
  form.set('user', chosen);
  form.set('decision', 'allow');
  const back = await go(`${authorize.origin}/oauth/authorize`, { method: 'POST', body: form });
  await go(back.headers.get('location')!);
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const hook = sandbox.webhookSubscriptions().find((subscription) => subscription.userId === chosen);
    // Every session cookie the gateway set: its own name, and an earlier version's (a build run beside it).
    const session = [...cookies].filter(([name]) => /^(__Host-)?gw_session/.test(name));
    if (hook?.state)
      return { cookie: session.map(([k, v]) => `${k}=${v}`).join('; '), state: hook.state, userId: chosen };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no webhook subscription for ${chosen}`);
}

/** A webhook body signed with the sandbox's current key, as the platform would send it. */
export function signedWebhook(
  sandbox: Sandbox,
  payload: Record<string, unknown>,
): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(payload);
  const signed = sandbox.signingKeys.sign(Buffer.from(body));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-signature': signed.signature,
      'x-service-signing-key': String(signed.keyId),
    },
  };
}

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
