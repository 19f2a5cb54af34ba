import { readFileSync } from 'node:fs';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/config.js';

const dockerfile = readFileSync('Dockerfile', 'utf8');
const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as {
  services: Record<
    string,
    { environment?: Record<string, string>; command?: string[]; build?: string | { context: string; target?: string } }
  >;
};

/** A stage without its comment lines. */
function commandsOf(stage: string): string {
  return stage
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
}

describe('the container recipe (no Docker engine here: linted and checked as text)', () => {
  it('lints clean, is multi-stage, installs production dependencies only, runs as non-root and checks readiness', () => {
    expect(validate(dockerfile).map((diagnostic) => diagnostic.message)).toEqual([]);
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const runtime = stages.at(-1)!;
    expect(runtime).toMatch(/^node:20\b/); // the engines this project promises
    // A plain production install (test/project/production-install.test.ts checks what it installs).
    expect(runtime).toMatch(/^RUN npm ci --omit=dev --no-audit --no-fund /m);
    expect(commandsOf(runtime)).not.toMatch(/sandbox|examples/);
    expect(runtime).toMatch(/COPY --from=build \/app\/common\/dist/);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
    expect(runtime).toMatch(/CMD \["node", "dist\/main\.js"\]/);
  });

  it('builds the standalone sandbox as an image target of its own, from the sandbox package only', () => {
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const sandbox = stages.find((stage) => /^\S+ AS sandbox$/m.test(stage));
    expect(sandbox).toBeDefined();
    // The sandbox alone as the manifest's dependency, installed on the root's lockfile.
    expect(sandbox).toMatch(/npm pkg delete dependencies devDependencies/);
    expect(sandbox).toMatch(/npm pkg set "dependencies\[@open-finance-gateway\/sandbox\]=file:sandbox"/);
    expect(sandbox).toMatch(/npm install --omit=dev/);
    expect(sandbox).toMatch(/COPY --from=build \/app\/sandbox\/dist/);
    expect(sandbox).toMatch(/COPY --from=build \/app\/common\/dist/);
    expect(sandbox).toMatch(/^USER node$/m);
    expect(sandbox).toMatch(/CMD \["node", "dist\/main\.js"\]/);
    // `docker build .` (compose's gateways) must build the gateway: its stage comes last.
    expect(stages.at(-1)).toMatch(/^\S+ AS runtime$/m);
  });

  it('gives every gateway in the compose file a configuration the gateway accepts, on shared Redis', () => {
    const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway'));
    expect(gateways.length).toBeGreaterThanOrEqual(2);
    for (const [, service] of gateways) {
      const config = loadConfig(service.environment ?? {});
      expect(config.redis?.connection.nodes).toEqual([{ host: 'redis', port: 6379 }]);
    }
    const sandbox = compose.services.sandbox!;
    // The standalone sandbox runs from its own image target; the gateways from the default (last) stage.
    expect(sandbox.build).toEqual({ context: '.', target: 'sandbox' });
    for (const [, service] of gateways) expect(service.build).toBe('.');
    // The sandbox and the gateways agree on the app's credentials.
    const gateway = gateways[0]![1].environment!;
    expect(sandbox.environment!.SANDBOX_APP_TOKEN).toBe(gateway.APP_TOKEN);
    expect(sandbox.environment!.SANDBOX_APP_SECRET).toBe(gateway.APP_SECRET);
    expect(sandbox.environment!.SANDBOX_ENRICHMENT_KEY).toBe(gateway.ENRICHMENT_API_KEY);
  });
});
