import { fork, type ChildProcess, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { ParentEventMessage } from '../../src/lib/parent-events.js';

/** A started gateway process: its pid, its public URL and how long it took to listen. */
export interface RunningGateway {
  pid: number;
  url: string;
  startMs: number;
}

export interface GatewayProcess {
  /** The running one, if any. */
  readonly current: RunningGateway | undefined;
  /** Stops the running gateway (if any), then starts `dist/main.js` and resolves once it listens. */
  restart(env: NodeJS.ProcessEnv): Promise<RunningGateway>;
  stop(): Promise<void>;
  /** Stops the gateway for good: a restart in flight starts nothing. */
  close(): Promise<void>;
}

/** SIGINT stops the gateway at once; past this, something hangs and it is killed. */
const STOP_DEADLINE_MS = 5_000;

/**
 * The built gateway (`dist/main.js`) as a child process, one at a time. It reports that it listens
 * over IPC (IPC_EVENTS), the same event an embedder gets, so a restart waits on that, not on logs.
 */
export function createGatewayProcess(root: string, stdio: StdioOptions = 'inherit'): GatewayProcess {
  let child: ChildProcess | undefined;
  let current: RunningGateway | undefined;
  let closed = false;

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    current = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGINT');
    const deadline = setTimeout(() => running.kill('SIGKILL'), STOP_DEADLINE_MS);
    await exited;
    clearTimeout(deadline);
  }

  async function start(env: NodeJS.ProcessEnv): Promise<RunningGateway> {
    const startedAt = performance.now();
    const spawned = fork(join(root, 'dist/main.js'), [], {
      cwd: root,
      // Not this process's flags (tsx's loader): the gateway runs as `node dist/main.js` does.
      execArgv: ['--enable-source-maps'],
      env: { ...env, IPC_EVENTS: 'true' },
      stdio: Array.isArray(stdio) ? stdio : [stdio, stdio, stdio, 'ipc'],
      // Its own process group: Ctrl+C reaches it once, from the supervisor, not also from the terminal.
      detached: true,
    });
    child = spawned;
    const listening = new Promise<string>((resolve, reject) => {
      spawned.on('message', (message: ParentEventMessage) => {
        if (message.type === 'gateway-event' && message.name === 'listening')
          resolve((message.event as { url: string }).url);
      });
      spawned.once('exit', (code, signal) =>
        reject(new Error(`the gateway exited before listening (${signal ?? `exit code ${code}`})`)),
      );
    });
    const url = await listening;
    current = { pid: spawned.pid!, url, startMs: Math.round(performance.now() - startedAt) };
    return current;
  }

  return {
    get current() {
      return current;
    },
    async restart(env) {
      await stop();
      if (closed) throw new Error('stopped');
      return start(env);
    },
    stop,
    async close() {
      closed = true;
      await stop();
    },
  };
}
