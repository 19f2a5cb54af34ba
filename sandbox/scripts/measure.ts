import { performance } from 'node:perf_hooks';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createSandbox } from '../src/sandbox.js';

/**
 * Measures what the sandbox costs a developer: how long creating and starting it takes, and how long the
 * enrichment API takes to answer one `/v1/search` of 1,000 queries (the demo world's statement
 * lines, the queries the gateway sends), as a client sees it. Run: `npx tsx scripts/measure.ts`.
 */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const logger = createLogger({ level: 'silent' });
  const starts: number[] = [];
  for (let run = 0; run < 5; run += 1) {
    // The first run is a fresh process's start, what `npm start` pays; the others repeat it (tests).
    const started = performance.now();
    const sandbox = createSandbox({ logger, headerPrefix: 'X-Service' });
    await sandbox.start();
    starts.push(performance.now() - started);
    await sandbox.stop();
  }
  const sandbox = createSandbox({ logger, headerPrefix: 'X-Service' });
  await sandbox.start();
  const lines = sandbox.world().transactions.map((t) => ({ description: t.description, amount: t.amount }));
  const bodyOf = (unique: string) =>
    JSON.stringify(
      Array.from({ length: 1000 }, (_, index) => {
        const line = lines[index % lines.length]!;
        // `unique`: every description new to the sandbox, so no answer is reused.
        return unique ? { ...line, description: `${line.description} REF${unique}X${index}` } : line;
      }),
    );
  const search = async (body: string) => {
    const response = await fetch(`${sandbox.enrichmentUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.credentials.enrichmentKey}`, 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 200) throw new Error(`search answered ${response.status}`);
    await response.arrayBuffer();
  };
  const repeated = bodyOf('');
  for (let run = 0; run < 20; run += 1) await search(repeated);
  const measure = async (body: (run: number) => string) => {
    const times: number[] = [];
    // CPU time too: on a shared machine the wall clock also counts other processes' turns.
    const cpuBefore = process.cpuUsage();
    for (let run = 0; run < 50; run += 1) {
      const text = body(run);
      const started = performance.now();
      await search(text);
      times.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    return `median ${median(times).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms, CPU ${((cpu.user + cpu.system) / 1000 / times.length).toFixed(1)} ms a search (client and server)`;
  };
  const statementLines = await measure(() => repeated);
  const distinct = await measure((run) => bodyOf(String(run + 1)));
  await sandbox.stop();
  process.stdout.write(
    `createSandbox() + start(): first ${starts[0]!.toFixed(0)} ms, then median ${median(starts.slice(1)).toFixed(0)} ms\n` +
      `/v1/search, 1,000 of the demo world's statement lines: ${statementLines}\n` +
      `/v1/search, 1,000 descriptions never seen before: ${distinct}\n`,
  );
}

void main();
