/**
 * `npm run dev`: compiles src/ with `tsc --watch` and restarts the gateway on each clean compile,
 * against one sandbox on fixed ports and a Redis that keep the demo world, sessions and bank
 * connections across restarts. Ctrl+C stops everything. What survives what: docs/guides/sandbox.md.
 */
import { resolve } from 'node:path';
import { createDevSupervisor } from './dev/dev-supervisor.js';

async function main(): Promise<void> {
  const root = resolve(__dirname, '..');
  const supervisor = await createDevSupervisor({
    root,
    stateDir: resolve(root, '.dev'),
    env: process.env,
    watch: true,
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\n  Stopping the gateway, the compiler, the sandbox…\n');
    supervisor.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`stop failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  supervisor.events.on('restarted', ({ pid, startMs, compileMs }) => {
    const compiled = compileMs === undefined ? '' : `compile ${compileMs} ms + `;
    process.stdout.write(`  Gateway (pid ${pid}) listening: ${compiled}start ${startMs} ms.\n`);
  });
  await supervisor.ready;
  const { sandbox, redis } = supervisor;
  const redisWhere = { REDIS_URL: 'from REDIS_URL', local: 'the local server', private: 'private, kept in .dev/redis' };
  process.stdout.write(
    [
      '',
      `  GraphiQL: ${supervisor.url}/graphql (sign in as a demo user; the sign-in page shows their secrets)`,
      `  Sandbox console: ${sandbox.consoleUrl}`,
      `  Sandbox core API ${sandbox.coreUrl}, enrichment ${sandbox.enrichmentUrl}, identity provider ${sandbox.identity.issuer}`,
      `  Redis: ${redis.url} (${redisWhere[redis.origin]})`,
      '  Saving a file in src/ recompiles and restarts the gateway; the sandbox, sessions and bank connections stay.',
      '  Ctrl+C stops everything.',
      '',
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`npm run dev failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
