import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { track } from './leftovers.js';

/**
 * The README's commands run as a newcomer runs them, for the first-run journey. Nothing here loads
 * a built package: on CI's fresh clone the journey runs before anything is built.
 */

/**
 * Starts `npm run <script>` in a process group of its own (stopped with Ctrl+C after the test, as a
 * person would), and resolves with the first match of `ready` in what it prints.
 */
export function runNpm(script: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<RegExpExecArray> {
  return runUntil('npm', ['run', script], env, ready);
}

/** The same for any command: rejects with the end of its output if it exits before `ready` matches. */
export async function runUntil(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<RegExpExecArray> {
  const child = spawn(command, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  track(() => interrupt(child));
  let output = '';
  return new Promise<RegExpExecArray>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve(match);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) =>
      reject(new Error(`${[command, ...args].join(' ')} exited with ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/** Ctrl+C to the command and everything it started; resolves once it has exited. */
async function interrupt(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  process.kill(-child.pid, 'SIGINT');
  await exited;
}

/** A port nobody listens on now, on any address. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0);
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Whether every one of `ports` can be listened on now, on every address (as the gateway listens). */
export async function allFree(ports: number[]): Promise<boolean> {
  for (const port of ports) {
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, () => resolve(true));
    });
    if (free) await new Promise((closed) => server.close(closed));
    else return false;
  }
  return true;
}
