import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A `redis-server` process a test starts itself (never the shared Redis). */
export interface RedisProcess {
  port: number;
  process: ChildProcess;
  exited: Promise<unknown>;
}

const READY = /Ready to accept connections/;

/**
 * Starts `redis-server` on `port` of the loopback address, writing no snapshots, in a temporary
 * directory of its own (removed when it exits; a replica writes the snapshot its primary sends
 * there, which would otherwise land in the working tree), with `args` after those options (a
 * `--dir` among them wins; a config file, which redis-server wants first, as `config`), and
 * resolves once its output matches `ready`; rejects with that output if it exits first.
 */
export async function startRedisServer(
  port: number,
  args: string[] = [],
  options: { config?: string; ready?: RegExp } = {},
): Promise<RedisProcess> {
  const config = options.config === undefined ? [] : [options.config];
  const dir = mkdtempSync(join(tmpdir(), 'ofg-redis-'));
  const child = spawn(
    'redis-server',
    [...config, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = once(child, 'exit').finally(() => rmSync(dir, { recursive: true, force: true }));
  const ready = options.ready ?? READY;
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited ${code}: ${output}`)));
  });
  return { port, process: child, exited };
}
