import { performance } from 'node:perf_hooks';
import { createSandbox } from '../src/sandbox.js';
import { createLogger } from '../src/lib/logger.js';

/**
 * Measures what the sandbox costs a developer: how long creating and starting it takes, and how long the
 * enrichment API takes to answer one `/v1/search` of 1,000 queries (the demo world's statement
 * lines, the queries the gateway sends), as a client sees it. Run: `npx tsx scripts/measure.ts`.
 */
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
  const body = JSON.stringify(Array.from({ length: 1000 }, (_, index) => lines[index % lines.length]!));
  const search = async () => {
    const response = await fetch(`${sandbox.enrichmentUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.credentials.enrichmentKey}`, 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 200) throw new Error(`search answered ${response.status}`);
    await response.arrayBuffer();
  };
  for (let run = 0; run < 20; run += 1) await search();
  const times: number[] = [];
  // CPU time too: on a shared machine the wall clock also counts other processes' turns.
  const cpuBefore = process.cpuUsage();
  for (let run = 0; run < 50; run += 1) {
    const started = performance.now();
    await search();
    times.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  await sandbox.stop();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  process.stdout.write(
    `createSandbox() + start(): first ${starts[0]!.toFixed(0)} ms, then median ${median(starts.slice(1)).toFixed(0)} ms\n` +
      `/v1/search, 1,000 queries: median ${median(times).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms, ` +
      `CPU ${((cpu.user + cpu.system) / 1000 / times.length).toFixed(1)} ms a search (client and server)\n`,
  );
}

void main();
