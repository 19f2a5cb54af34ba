import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './instances.js';
import { track } from './leftovers.js';

/**
 * A redis-server of a test's own (nothing on disk) that the test can freeze (SIGSTOP: the socket
 * stays open, nothing is answered, as in a long fork or a stalled disk), thaw (SIGCONT) or kill.
 * Never the shared Redis.
 */
export interface StallableRedis {
  url: string;
  pause(): void;
  resume(): void;
  kill(): Promise<void>;
}

/** `args`: more redis-server options (`--replicaof host port` for a replica). */
export async function startStallableRedis(args: string[] = []): Promise<StallableRedis> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = once(child, 'exit');
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${output}`)));
  });
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  track(kill);
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    kill,
  };
}
