import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createLogger } from '../../src/lib/logger.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/sandbox.js';
import { recordLogLine, recordSecrets } from './audit.js';
import { track } from './leftovers.js';

/** The built gateway, as operators run it (the global setup builds it before any test). */
export const GATEWAY_ENTRY = 'dist/main.js';

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
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
    recordSecrets([
      { label: 'app secret', value: sandbox.credentials.appSecret },
      { label: 'enrichment key', value: sandbox.credentials.enrichmentKey },
      ...sandbox.issuedTokens().map((value) => ({ label: 'user access token', value })),
    ]);
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
    HOST: '127.0.0.1',
    LOG_LEVEL: 'debug',
    SHUTDOWN_DELAY_MS: '0',
    ...shared,
  };
}

export interface Instance {
  name: string;
  port: number;
  /** Where this instance listens (a load balancer would send requests here). */
  url: string;
  logs: Array<Record<string, unknown>>;
  waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  process: ChildProcess;
  exited: Promise<number | null>;
}

/** A real gateway process (`node dist/main.js`), on a port of its own. */
export async function startInstance(name: string, env: Record<string, string>, port?: number): Promise<Instance> {
  const listenPort = port ?? (await freePort());
  const child = spawn(process.execPath, [GATEWAY_ENTRY], {
    env: { ...process.env, ...env, PORT: String(listenPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  track(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  const logs: Array<Record<string, unknown>> = [];
  const waiters = new Set<{
    match: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }>();
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const text of lines) {
      if (!text.startsWith('{')) continue;
      recordLogLine(text);
      const line = JSON.parse(text) as Record<string, unknown>;
      logs.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.delete(waiter);
          waiter.resolve(line);
        }
      }
    }
  });
  const waitForLog = (match: (line: Record<string, unknown>) => boolean) => {
    const seen = logs.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<Record<string, unknown>>((resolve) => waiters.add({ match, resolve }));
  };
  const listening = waitForLog((line) => line.msg === 'gateway listening');
  const failed = exited.then((code) => {
    throw new Error(`instance ${name} exited with ${code} before listening: ${stderr}`);
  });
  await Promise.race([listening, failed]);
  failed.catch(() => undefined);
  return { name, port: listenPort, url: `http://127.0.0.1:${listenPort}`, logs, waitForLog, process: child, exited };
}
