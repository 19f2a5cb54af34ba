import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.js';

/**
 * The one-way imports of the gateway, checked on every `npm test` (ESLint's TypeScript parser
 * does not support this project's TypeScript 7, so the rule lives here): for each area of src/,
 * the other areas it may import; anything else is a violation, and so is an area the rule does
 * not name. Upstream clients know nothing of GraphQL or the server; webhooks and subscriptions
 * meet only at the event log; every store sits in its domain's area, on the Redis plumbing and key
 * scheme of redis/, and only the composition root chooses and wires them. The platform sandbox is
 * a package of its own (sandbox/): the gateway reaches it through one seam (app/upstream-choice.ts,
 * a dynamic import a production install without the package survives), and the sandbox imports
 * nothing of the gateway. What both need (the platform's webhook table, small node:http helpers,
 * the logger) is the third package, common/, which imports neither.
 */
const ALLOWED: Record<string, string[]> = {
  lib: [],
  config: ['lib'],
  redis: ['lib', 'config'],
  upstream: ['lib', 'config'],
  'event-log': ['lib', 'redis'],
  idempotency: ['lib', 'redis'],
  accreditation: ['lib', 'config'],
  'user-data': ['lib', 'redis'],
  loaders: ['lib', 'config', 'upstream', 'event-log', 'user-data'],
  webhooks: ['lib', 'config', 'redis', 'upstream', 'event-log', 'user-data'],
  auth: ['lib', 'config', 'redis', 'upstream', 'event-log'],
  graphql: ['lib', 'config', 'upstream', 'loaders', 'event-log', 'idempotency'],
  // The one operation core every transport goes through, and the context it builds.
  'operation-core': ['lib', 'config', 'upstream', 'loaders', 'event-log', 'idempotency', 'graphql', 'auth'],
  server: [
    'lib',
    'config',
    'upstream',
    'loaders',
    'event-log',
    'idempotency',
    'graphql',
    'auth',
    'webhooks',
    'operation-core',
  ],
};

/** The composition root (app.ts and its steps in app/), the process entry and its defaults: they may import any area. */
const COMPOSITION_ROOT = ['app', 'app.ts', 'main.ts', 'process-defaults.ts'];

/**
 * The sandbox's rooms, floor by floor from the ground up. A file may import its own room and the
 * rooms of lower floors, never a room beside it or above it: the model types at the bottom, the
 * state and the HTTP helpers on them, the platform's APIs (core, identity, then webhooks and
 * enrichment, which use core's app checks, and the logos enrichment hands out), the facade (sandbox-api.ts), the console and the
 * browser drivers on the facade, then the routes, the sandbox and its entry points. A new room must
 * be placed here.
 */
const SANDBOX_FLOORS: string[][] = [
  ['model', 'lib', 'standalone-settings.ts'],
  ['sandbox-state.ts'],
  ['sandbox-http.ts', 'data'],
  ['core', 'identity'],
  ['webhooks', 'enrichment', 'logos'],
  ['sandbox-api.ts'],
  ['console', 'testing'],
  ['sandbox-routes.ts'],
  ['sandbox.ts'],
  ['main.ts', 'index.ts'],
];

/**
 * Inside server/, each room and the rooms it may import. Every transport is a thin adapter over
 * the operation core (src/operation-core/): the HTTP ones (graphql-http/ with Apollo,
 * http-subscriptions/ with multipart and graphql-sse) never reach the socket's (graphql-ws/, the
 * protocol; websocket/, its `ws` adapter), nor the reverse. What they share of the wire sits in
 * edge/: credentials to a session or a refusal, the one refusal table (HTTP statuses and close
 * codes), CSRF, answers. The node HTTP server (http/) knows GraphiQL only to tell a browser from a
 * client. A new room must be named here.
 */
const SERVER_ROOMS: Record<string, string[]> = {
  http: ['graphiql'],
  edge: [],
  'graphql-http': ['edge'],
  'http-subscriptions': ['edge'],
  'graphql-ws': [],
  websocket: ['edge', 'graphql-ws'],
  graphiql: [],
  observability: [],
};

/** The only folder whose files may import `ws`: the socket library stays behind its adapter. */
const WS_ADAPTER = join('src', 'server', 'websocket');

const SANDBOX_PACKAGE = '@open-finance-gateway/sandbox';
const COMMON_PACKAGE = '@open-finance-gateway/common';
/** The one gateway module that may name the sandbox package. */
const SEAM = 'app/upstream-choice.ts';

/** Every import of a file, relative or not, as written. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1]!);
}

/** Every relative import of a file, as the file it names (`.js` written for `.ts`). */
function resolvedImportsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => normalize(join(dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

/** The circles of an import graph: each a list of files that import one another (Tarjan). */
function circlesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const circle: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      circle.push(member);
    } while (member !== node);
    if (circle.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(circle.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** Every relative import of a file, as a path under src/ (`graphql/context.js`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
  return specifiers.map((specifier) =>
    relative('src', normalize(join(dirname(file), specifier))).replaceAll('\\', '/'),
  );
}

describe('import boundaries', () => {
  it('keeps every area of src/ to its side of the one-way imports', () => {
    const violations: string[] = [];
    for (const file of sourceFiles('src')) {
      const area = relative('src', file).split(/[\\/]/)[0]!;
      if (!ALLOWED[area] && !COMPOSITION_ROOT.includes(area))
        violations.push(`${relative('src', file)} is in an area of src/ the rule does not name`);
      for (const target of importsOf(file)) {
        const targetArea = target.split('/')[0]!;
        if (targetArea === area) continue;
        if (ALLOWED[area] && !ALLOWED[area].includes(targetArea))
          violations.push(`${relative('src', file)} imports ${target}`);
        if (target.startsWith('..')) violations.push(`${relative('src', file)} reaches outside src/: ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps the rule one-way: no area may reach back to itself through the areas it may import', () => {
    // With no circle in the rule, the areas stack into floors and no allowed import runs back up.
    expect(circlesOf(new Map(Object.entries(ALLOWED)))).toEqual([]);
    expect(circlesOf(new Map(Object.entries(SERVER_ROOMS)))).toEqual([]);
  });

  it('has no import circle in any package, type-only imports included', () => {
    const files = [
      ...sourceFiles('src'),
      ...sourceFiles(join('sandbox', 'src')),
      ...sourceFiles(join('common', 'src')),
    ];
    const graph = new Map(files.map((file) => [normalize(file), resolvedImportsOf(file)]));
    expect(circlesOf(graph)).toEqual([]);
  });

  it('keeps each room of the sandbox on its floor: no import runs up or sideways', () => {
    const root = join('sandbox', 'src');
    const floorOf = (room: string) => SANDBOX_FLOORS.findIndex((rooms) => rooms.includes(room));
    const violations: string[] = [];
    for (const file of sourceFiles(root)) {
      const room = relative(root, file).split(/[\\/]/)[0]!;
      if (floorOf(room) < 0) {
        violations.push(`${relative(root, file)} is in a room of the sandbox no floor names`);
        continue;
      }
      for (const target of resolvedImportsOf(file)) {
        const targetRoom = relative(root, target).split(/[\\/]/)[0]!;
        if (targetRoom === room || targetRoom.startsWith('..')) continue;
        if (!(floorOf(targetRoom) >= 0 && floorOf(targetRoom) < floorOf(room)))
          violations.push(`${relative(root, file)} imports ${relative(root, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps each room of server/ to its side: the transports never import each other', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(join('src', 'server'))) {
      const room = relative(join('src', 'server'), file).split(/[\\/]/)[0]!;
      const allowed = SERVER_ROOMS[room];
      if (!allowed) {
        violations.push(`${relative('src', file)} is in a room of server/ the rule does not name`);
        continue;
      }
      for (const target of importsOf(file)) {
        const [area, targetRoom] = target.split('/');
        if (area !== 'server' || targetRoom === room) continue;
        if (!allowed.includes(targetRoom!.replace(/\.js$/, '.ts')))
          violations.push(`${relative('src', file)} imports ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps the ws library behind its adapter: only server/websocket/ imports it', () => {
    const importers = sourceFiles('src').filter((file) => specifiersOf(file).includes('ws'));
    expect(importers.filter((file) => dirname(file) !== WS_ADAPTER)).toEqual([]);
    expect(importers.length).toBeGreaterThan(0);
  });

  it('reaches the sandbox package from one seam only, and never its files', () => {
    const users = sourceFiles('src').filter((file) =>
      specifiersOf(file).some(
        (specifier) => specifier.startsWith(SANDBOX_PACKAGE) || /(^|\/)sandbox\//.test(specifier),
      ),
    );
    expect(users.map((file) => relative('src', file).replaceAll('\\', '/'))).toEqual([SEAM]);
    expect(specifiersOf(join('src', SEAM)).filter((s) => s.startsWith(SANDBOX_PACKAGE))).toEqual([
      SANDBOX_PACKAGE,
      SANDBOX_PACKAGE,
      SANDBOX_PACKAGE,
    ]);
  });

  it('keeps the sandbox package free of the gateway: no import of its source or tests leaves the package', () => {
    const violations: string[] = [];
    // Its tests too use only the package (its src/ and test/), never the gateway's code or test support.
    const inside = (path: string, dir: string) => !relative(join('sandbox', dir), path).startsWith('..');
    const files = [...sourceFiles(join('sandbox', 'src')), ...sourceFiles(join('sandbox', 'test'))];
    for (const file of files) {
      for (const specifier of specifiersOf(file)) {
        const target = normalize(join(dirname(file), specifier));
        const escapes =
          specifier.startsWith('.') &&
          (inside(file, 'src') ? !inside(target, 'src') : !inside(target, 'src') && !inside(target, 'test'));
        if (escapes || specifier.startsWith('open-finance-gateway'))
          violations.push(`${relative('sandbox', file)} imports ${specifier}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps the common package free of both: it imports neither the gateway nor the sandbox', () => {
    const violations = sourceFiles(join('common', 'src')).flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) =>
          specifier.startsWith('.')
            ? relative(join('common', 'src'), normalize(join(dirname(file), specifier))).startsWith('..')
            : specifier.startsWith('open-finance-gateway') || specifier.startsWith('@open-finance-gateway/'),
        )
        .map((specifier) => `${relative('common', file)} imports ${specifier}`),
    );
    expect(violations).toEqual([]);
  });

  it('keeps one copy of each source file: nothing in the sandbox repeats a file of the gateway or of common', () => {
    // What both packages need belongs in common/; a copy would drift (the webhook table once did).
    const body = (file: string) =>
      readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$|^import .*$/gm, '')
        .replace(/\s+/g, ' ')
        .trim();
    const owners = new Map<string, string>();
    for (const file of [...sourceFiles('src'), ...sourceFiles(join('common', 'src'))]) owners.set(body(file), file);
    const copies = sourceFiles(join('sandbox', 'src'))
      .filter((file) => body(file).length > 200 && owners.has(body(file)))
      .map((file) => `${file} repeats ${owners.get(body(file))}`);
    expect(copies).toEqual([]);
  });

  it('reaches the common package by its name only, from both packages', () => {
    const reachesIn = [...sourceFiles('src'), ...sourceFiles(join('sandbox', 'src'))].flatMap((file) =>
      specifiersOf(file)
        .filter((specifier) => /(^|\/)common\/(src|dist)\//.test(specifier))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(reachesIn).toEqual([]);
    expect(specifiersOf(join('src', 'app', 'routes.ts')).some((s) => s.startsWith(`${COMMON_PACKAGE}/`))).toBe(true);
  });

  it('would notice a violation (the checker itself works)', () => {
    const imports = importsOf('src/upstream/core-client.ts');
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.every((target) => !target.startsWith('..'))).toBe(true);
    expect(resolvedImportsOf('src/loaders/enrichment-loader.ts')).toContain(
      normalize('src/loaders/enrichment-lookup.ts'),
    );
    const circles = circlesOf(
      new Map([
        ['a', ['b']],
        ['b', ['c', 'd']],
        ['c', ['a']],
        ['d', []],
        ['e', ['e']],
      ]),
    );
    expect(circles).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('keeps async_hooks out of src/: the request scope is passed along, not stored', () => {
    // On Node 20 an AsyncLocalStorage (or any async hook) makes V8 call into JavaScript for every
    // promise the process creates: 4-6% of the CPU of a page of enriched transactions, measured.
    // The request's id travels in RequestScope instead (src/lib/request-scope.ts).
    const users = sourceFiles('src').filter((file) =>
      /from\s*'(?:node:)?async_hooks'|\bAsyncLocalStorage\b(?!`)/.test(
        readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, ''),
      ),
    );
    expect(users).toEqual([]);
  });
});
