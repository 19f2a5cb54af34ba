import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** What one line of `tsc --watch` output says about the compile, if anything. */
export type CompileSignal = { kind: 'started' } | { kind: 'finished'; errors: number } | undefined;

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Reads tsc's watch status lines ("Starting compilation…", "File change detected…", "Found 2
 * errors…"), the only signal that a whole compile has finished: dist/ changes file by file.
 */
export function compileSignal(line: string): CompileSignal {
  const text = line.replace(ANSI, '');
  if (/(Starting compilation in watch mode|File change detected)/.test(text)) return { kind: 'started' };
  const found = /Found (\d+) errors?\b/.exec(text);
  return found ? { kind: 'finished', errors: Number(found[1]) } : undefined;
}

export interface TscWatchEvents {
  /** A compile began (the first one, or after a source change). */
  started: [];
  /** A compile ended; `ms` from its start. dist/ is complete only when `errors` is 0. */
  finished: [{ errors: number; ms: number }];
}

export interface TscWatch {
  readonly events: EventEmitter<TscWatchEvents>;
  stop(): Promise<void>;
}

/**
 * `tsc -p tsconfig.build.json --watch`: the real compiler (decorator metadata included, which
 * type-graphql needs and esbuild-based runners do not emit), incremental after its first
 * compile. Its output, errors included, goes to `output` as it comes.
 */
export function startTscWatch(root: string, output: NodeJS.WritableStream): TscWatch {
  const events = new EventEmitter<TscWatchEvents>();
  const args = ['-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput'];
  if ((output as NodeJS.WriteStream).isTTY) args.push('--pretty');
  const child: ChildProcess = spawn(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    // Its own process group: Ctrl+C reaches it from the supervisor, in order, not from the terminal.
    detached: true,
  });
  const exited = once(child, 'exit');
  let startedAt = performance.now();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    output.write(`${line}\n`);
    const signal = compileSignal(line);
    if (signal?.kind === 'started') {
      startedAt = performance.now();
      events.emit('started');
    } else if (signal?.kind === 'finished')
      events.emit('finished', { errors: signal.errors, ms: Math.round(performance.now() - startedAt) });
  });
  return {
    events,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // The whole group: the npm launcher and the native compiler it runs.
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}
