import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

/**
 * The process log (common/src/logger.ts) writes stdout in the background: what is held must be
 * written at exit, and a reader that stops reading must not make the process hold more than the
 * bound in memory.
 */
function runNode(script: string, stdout: 'read' | 'stuck') {
  const child = spawn(process.execPath, ['--expose-gc', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  if (stdout === 'read') child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  else child.stdout.pause(); // nobody reads: the pipe fills and the child's writes wait
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { child, out: () => out, err: () => err };
}

const LOGS_THEN_EXITS = `
  const { createLogger } = require('@open-finance-gateway/common/logger');
  const logger = createLogger({ level: 'info' });
  for (let n = 0; n < 5000; n += 1) logger.info({ n }, 'line');
  process.exit(3);
`;

/** 48 MiB of lines in one turn of the loop (none can be written meanwhile), then what is held. */
const LOGS_PAST_THE_BOUND = `
  const { createLogger, droppedLogLines, MAX_BUFFERED_LOG_BYTES } = require('@open-finance-gateway/common/logger');
  const logger = createLogger({ level: 'info' });
  const padding = 'x'.repeat(1024);
  global.gc();
  const before = process.memoryUsage().heapUsed;
  for (let n = 0; n < 48 * 1024; n += 1) logger.info({ n, padding }, 'line');
  global.gc();
  const grown = process.memoryUsage().heapUsed - before;
  process.stderr.write(JSON.stringify({ grown, dropped: droppedLogLines(), bound: MAX_BUFFERED_LOG_BYTES }) + '\\n');
  setInterval(() => {}, 1000);
`;

describe('the process log', () => {
  it('writes every line logged before an exit, though lines are written in the background', async () => {
    const { child, out } = runNode(LOGS_THEN_EXITS, 'read');
    const [code] = await once(child, 'close'); // exited, and its stdout read to the end

    expect(code).toBe(3);
    const lines = out()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { n: number; msg: string });
    expect(lines).toHaveLength(5000);
    expect(lines.at(-1)).toMatchObject({ n: 4999, msg: 'line' });
  });

  it('holds at most its bound when stdout is not read, and counts the lines it drops', async () => {
    const { child, err } = runNode(LOGS_PAST_THE_BOUND, 'stuck');
    try {
      // The child's report, or its exit (a script that failed) with what it printed.
      const exited = once(child, 'exit').then(() => {
        throw new Error(`the child exited before reporting: ${err()}`);
      });
      exited.catch(() => undefined); // the kill below ends it too: only the race reports it
      while (!err().includes('\n')) await Promise.race([once(child.stderr, 'data'), exited]);
      const report = JSON.parse(err()) as { grown: number; dropped: number; bound: number };
      // 48 MiB logged: about 16 MiB held, the rest dropped and counted.
      expect(report.grown).toBeLessThan(report.bound * 1.5);
      expect(report.dropped).toBeGreaterThan(30 * 1024);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
