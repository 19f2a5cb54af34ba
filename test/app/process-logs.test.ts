import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

/**
 * The gateway's process writes its log lines in the background (main.ts, bufferedStdout): a line
 * logged just before the process exits must still reach stdout.
 */
const LOGS_THEN_EXITS = `
  const { bufferedStdout, createLogger } = require('@open-finance-gateway/common/logger');
  const logger = createLogger({ level: 'info', destination: bufferedStdout() });
  for (let n = 0; n < 5000; n += 1) logger.info({ n }, 'line');
  process.exit(3);
`;

describe('the process log', () => {
  it('writes every line logged before an exit, though lines are written in the background', async () => {
    const child = spawn(process.execPath, ['-e', LOGS_THEN_EXITS], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = await once(child, 'close'); // exited, and its stdout read to the end

    expect(code).toBe(3);
    const lines = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { n: number; msg: string });
    expect(lines).toHaveLength(5000);
    expect(lines.at(-1)).toMatchObject({ n: 4999, msg: 'line' });
  });
});
