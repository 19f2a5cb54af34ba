import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox, type Sandbox } from '@open-finance-gateway/sandbox';
import type { ParentEventMessage } from '../../src/lib/parent-events.js';
import { recordLogLine, recordSandboxSecrets } from './audit.js';
import { EventRecorder } from './event-recorder.js';
import { track } from './leftovers.js';
import { tokenKeysSetting } from './redis.js';

/** The built gateway, as operators run it (the global setup builds it before any test). */
export const GATEWAY_ENTRY = 'dist/main.js';

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** A port another program listens on (every interface unless `host` says one) until the test ends. */
export async function takenPort(host?: string): Promise<number> {
  const blocker = createServer().listen(0, host);
  await once(blocker, 'listening');
  track(() => new Promise<void>((closed) => blocker.close(() => closed())));
  return (blocker.address() as { port: number }).port;
}

/** Whether `port` of the loopback address can be listened on now. */
async function isFree(port: number): Promise<boolean> {
  const server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    server.close();
  }
}

/**
 * A free port for a Redis Cluster node, whose cluster bus listens on the port plus 10,000: a free
 * port's bus port may be taken (the node then exits: "Address already in use") or past 65,535.
 * Kept by Redis's own rule rather than a `cluster-port` of its own, so a node restarted with the
 * same arguments comes back on the same bus port.
 */
export async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && (await isFree(port + 10_000))) return port;
  }
}

/** A platform sandbox in this process, shared by gateway processes that reach it over HTTP. */
export async function startSharedSandbox(): Promise<Sandbox> {
  const sandbox = createSandbox({
    logger: createLogger({ level: 'silent' }),
    headerPrefix: 'X-Service',
    webhookTimeScale: 3_600,
    recordRequests: true,
  });
  await sandbox.start();
  track(async () => {
    recordSandboxSecrets(sandbox);
    await sandbox.stop();
  });
  return sandbox;
}

/** The settings every instance of one deployment shares. */
export function deploymentEnv(sandbox: Sandbox, shared: Record<string, string>): Record<string, string> {
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
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    SHUTDOWN_DELAY_MS: '0',
    ...shared,
  };
}

/**
 * The settings of gateway processes behind one "load balancer" origin (`publicUrl`, a free port on
 * localhost that the sandbox's platform and identity provider accept as a redirect target), with a
 * session secret and token keys they share, and `shared` on top.
 */
export async function behindLoadBalancer(sandbox: Sandbox, shared: Record<string, string>) {
  const publicPort = await freePort();
  const publicUrl = `http://localhost:${publicPort}`;
  sandbox.registerRedirectUri(`${publicUrl}/auth/callback`);
  sandbox.identity.registerRedirectUri(`${publicUrl}/auth/oidc/callback`);
  const env = deploymentEnv(sandbox, {
    PUBLIC_URL: publicUrl,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    TOKEN_ENCRYPTION_KEYS: tokenKeysSetting(),
    ...shared,
  });
  return { publicPort, publicUrl, env };
}

export interface Instance {
  name: string;
  port: number;
  /** Where this instance listens (a load balancer would send requests here). */
  url: string;
  /** Parsed log lines so far (also recorded for the secret-leak audit). */
  logs: Array<Record<string, unknown>>;
  /** The gateway's own events, sent over IPC (`IPC_EVENTS`): wait on these, not on log text. */
  events: EventRecorder;
  process: ChildProcess;
  exited: Promise<number | null>;
}

/**
 * A real gateway process (`node dist/main.js`), on `port`, or on one the system gives it (PORT=0,
 * read back from its 'listening' event): a port found free here and handed to the child could be
 * taken by another test in between, which made a start fail with EADDRINUSE.
 */
export async function startInstance(
  name: string,
  env: Record<string, string>,
  port?: number,
  /** Another build's entry (an earlier version, see previous-version.ts); this checkout's build by default. */
  entry = GATEWAY_ENTRY,
): Promise<Instance> {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, ...env, PORT: String(port ?? 0), IPC_EVENTS: 'true' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const events = new EventRecorder();
  child.on('message', (message: ParentEventMessage) => {
    if (message?.type === 'gateway-event') events.record(message.name, message.event);
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  track(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  const logs: Array<Record<string, unknown>> = [];
  let buffered = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const text of lines) {
      if (!text.startsWith('{')) continue;
      recordLogLine(text);
      logs.push(JSON.parse(text) as Record<string, unknown>);
    }
  });
  const listening = events.waitFor('listening');
  const failed = exited.then((code) => {
    throw new Error(`instance ${name} exited with ${code} before listening: ${stderr}`);
  });
  const { listenUrl } = await Promise.race([listening, failed]);
  failed.catch(() => undefined);
  const listenPort = Number(new URL(listenUrl).port);
  return { name, port: listenPort, url: `http://127.0.0.1:${listenPort}`, logs, events, process: child, exited };
}
