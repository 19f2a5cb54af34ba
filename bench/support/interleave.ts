import { percentile, type Measured } from './processes.js';

/** Fisher-Yates. */
export function shuffled<T>(items: Iterable<T>): T[] {
  const list = [...items];
  for (let index = list.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [list[index], list[other]] = [list[other]!, list[index]!];
  }
  return list;
}

/**
 * `runs` rounds in which every target serves one request, after `warmUp` such rounds; latency and,
 * for targets with a process, CPU per request over the measured rounds. Each round takes the
 * targets in a new random order: whichever goes first in a round runs up to a tenth slower on this
 * machine (seen in A/B runs of one build against itself), and a fixed order put that on one target.
 */
export async function interleaved(
  targets: Array<{ name: string; process?: Measured; request: (n: number) => Promise<number> }>,
  warmUp: number,
  runs: number,
): Promise<Array<{ p50: number; p99: number; cpuMs: number }>> {
  for (let n = 0; n < warmUp; n += 1) for (const target of targets) await target.request(-1 - n);
  const cpuBefore = await Promise.all(targets.map(async (target) => (await target.process?.measure())?.cpuMicros ?? 0));
  const latencies = targets.map((): number[] => []);
  for (let n = 0; n < runs; n += 1)
    for (const index of shuffled(targets.keys())) latencies[index]!.push(await targets[index]!.request(n));
  const cpuAfter = await Promise.all(targets.map(async (target) => (await target.process?.measure())?.cpuMicros ?? 0));
  return targets.map((_, index) => {
    const sorted = latencies[index]!.sort((a, b) => a - b);
    return {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      cpuMs: (cpuAfter[index]! - cpuBefore[index]!) / 1000 / runs,
    };
  });
}
