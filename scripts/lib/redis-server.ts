import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';

/**
 * Finding or starting a Redis on this machine: what the test suite and `npm run dev` share. A
 * fresh machine often has the `redis-server` binary but no server running.
 */
export interface LocalRedis {
  url: string;
  /** Stops a server this process started; a no-op for one that was already running. */
  stop(): Promise<void>;
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

/** A port nothing listens on at this moment: bound, then released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export interface RedisServerOptions {
  /** Keep an append-only file in this directory (the data survives a restart); none: memory only. */
  dataDir?: string;
  /** Said in the error when the binary cannot be started: what needed Redis and how else to give it one. */
  purpose: string;
  /** Its own process group, so a terminal's Ctrl+C reaches it only through whoever started it. */
  detached?: boolean;
}

/** Starts a private `redis-server` on a free loopback port and resolves once it answers PING. */
export async function startRedisServer(options: RedisServerOptions): Promise<LocalRedis> {
  const port = await freePort();
  const persistence = options.dataDir
    ? ['--dir', options.dataDir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '']
    : ['--save', '', '--appendonly', 'no'];
  let child: ChildProcess;
  try {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', ...persistence, '--loglevel', 'warning'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: options.detached ?? false,
      },
    );
    await Promise.race([once(child, 'spawn'), once(child, 'error').then(([error]) => Promise.reject(error as Error))]);
  } catch (error) {
    throw new Error(`${options.purpose}, and redis-server could not be started (${(error as Error).message})`);
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
