import { readFileSync } from 'node:fs';

/**
 * `tsx bench/support/profile-table.ts <profile.cpuprofile> <CPU ms per request> <seconds> [<other> <ms> <seconds>]`:
 * where a gateway's CPU went, per request, by part of the pipeline; with a second profile, the two
 * side by side. Profiles come from `BENCH_PROFILE_DIR=<dir> npm run bench:pipeline` (the gateway
 * under the 10-user page load, `--cpu-prof`), which prints the seconds of its load and the CPU per
 * request it measured: only the samples of the profile's last `seconds` count (not the start and
 * the sign-ins). The profiler samples by the wall clock, so on a loaded machine a thread waiting for
 * a core is charged to the frame it stopped in: each part's share of the samples is what counts,
 * and its milliseconds are that share of the measured CPU per request. Each sample is charged to the nearest frame on its
 * stack that a rule below names (so `JSON.parse` called by undici is undici's, a resolver's
 * garbage is execution's); built-ins with no named frame above them, and the collector, keep their own line.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  endTime: number;
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** First match wins, tried on each frame from the sample's leaf toward the root. */
const RULES: Array<[string, (frame: Node['callFrame']) => boolean]> = [
  ['response serialisation', (f) => f.functionName === 'prettyJSONStringify'],
  ['session and cookie', (f) => /dist\/auth\/|node_modules\/cookie\/|session-access/.test(f.url)],
  ['request context', (f) => /dist\/server\/request-context\/|dist\/graphql\/context/.test(f.url)],
  ['armor and limits', (f) => /graphql-armor|operation-rules|dist\/graphql\/limits/.test(f.url)],
  ['metrics and tracing', (f) => /prom-client|@opentelemetry|observability|dist\/lib\/tracing/.test(f.url)],
  ['loaders', (f) => /dist\/loaders\/|node_modules\/dataloader\//.test(f.url)],
  [
    'undici calls and their JSON',
    (f) => /node_modules\/undici\/|dist\/upstream\/|node:internal\/deps\/undici/.test(f.url),
  ],
  [
    'execution (graphql-js, type-graphql, resolvers)',
    (f) => /graphql\/execution|graphql\/type\/|type-graphql|class-validator|dist\/graphql\//.test(f.url),
  ],
  ['parse and validate', (f) => /graphql\/language|graphql\/validation|graphql\/utilities/.test(f.url)],
  ["Apollo's pipeline", (f) => /@apollo\//.test(f.url)],
  [
    'HTTP edge, body, access log',
    (f) =>
      /dist\/server\/|node:_http|node:http|pino|common\/dist\/|node:internal\/streams|node:net|node:internal\/http/.test(
        f.url,
      ),
  ],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
];

function table(path: string, seconds: number): Map<string, number> {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const verdict = new Map<number, string>();
  const categorise = (id: number): string => {
    const known = verdict.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') return 'idle';
    const rule = RULES.find(([, matches]) => matches(frame));
    const up = parent.get(id);
    // The root itself: samples in native code with no JavaScript frame above (timers, I/O callbacks).
    const found = rule ? rule[0] : up === undefined ? 'native, no JavaScript frame' : categorise(up);
    verdict.set(id, found);
    return found;
  };
  const micros = new Map<string, number>();
  // Sample times, counted back from the end.
  const from = profile.endTime - seconds * 1e6;
  let at = profile.endTime - profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    if (at < from) return;
    const category = categorise(id);
    micros.set(category, (micros.get(category) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
  });
  micros.delete('idle');
  return micros;
}

const args = process.argv.slice(2);
const runs: Array<{ micros: Map<string, number>; cpuMs: number }> = [];
for (let index = 0; index < args.length; index += 3)
  runs.push({ micros: table(args[index]!, Number(args[index + 2])), cpuMs: Number(args[index + 1]) });
const categories = [...new Set(runs.flatMap((run) => [...run.micros.keys()]))].sort(
  (a, b) => (runs[0]!.micros.get(b) ?? 0) - (runs[0]!.micros.get(a) ?? 0),
);
const sampled = (run: (typeof runs)[number]) => [...run.micros.values()].reduce((a, b) => a + b, 0);
const share = (run: (typeof runs)[number], category: string) => (run.micros.get(category) ?? 0) / sampled(run);
const lines = [
  `| part | ${args
    .filter((_, index) => index % 3 === 0)
    .map((path) => `${path.split('/').at(-1)}: ms per request (share)`)
    .join(' | ')} |`,
  `|---|${runs.map(() => '---').join('|')}|`,
];
for (const category of categories) {
  const cells = runs.map(
    (run) => `${(share(run, category) * run.cpuMs).toFixed(2)} (${(share(run, category) * 100).toFixed(1)}%)`,
  );
  if (runs.some((run) => share(run, category) >= 0.002)) lines.push(`| ${category} | ${cells.join(' | ')} |`);
}
lines.push(`| **all** | ${runs.map((run) => run.cpuMs.toFixed(2)).join(' | ')} |`);
console.log(lines.join('\n'));
