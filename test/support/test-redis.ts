import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect } from 'node:net';

/**
 * The Redis the suite shares: `TEST_REDIS_URL` when given, else a server already answering at
 * 127.0.0.1:6379, else a private `redis-server` this run starts on a free port (a fresh machine
 * often has the binary but no server running). Nothing is kept on disk either way.
 */
export interface SuiteRedis {
  url: string;
  /** Stops the private server; a no-op for a server the suite did not start. */
  stop(): Promise<void>;
}

export async function suiteRedis(env: NodeJS.ProcessEnv = process.env, defaultPort = 6379): Promise<SuiteRedis> {
  if (env.TEST_REDIS_URL) return { url: env.TEST_REDIS_URL, stop: async () => undefined };
  if (await answersPing(defaultPort)) return { url: `redis://127.0.0.1:${defaultPort}`, stop: async () => undefined };
  return startPrivateRedis();
}

/** True when something at 127.0.0.1:port answers a Redis PING (a bare TCP connect could be anything). */
export function answersPing(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk: Buffer) => done(chunk.toString('latin1').startsWith('+PONG')));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

async function startPrivateRedis(): Promise<SuiteRedis> {
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    await Promise.race([once(child, 'spawn'), once(child, 'error').then(([error]) => Promise.reject(error as Error))]);
  } catch (error) {
    throw new Error(
      `the tests need Redis: none answers at 127.0.0.1:6379, TEST_REDIS_URL is unset, and redis-server could not be started (${(error as Error).message}). Install redis-server or set TEST_REDIS_URL.`,
    );
  }
  const exited = once(child, 'exit');
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the private redis-server on port ${port} did not start`);
    // The server is a separate process with no readiness event to wait on: poll its PING.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
