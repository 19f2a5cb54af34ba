import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateIfMissing } from '../../scripts/lib/generated.js';
import { AUDIT_DIR } from './audit.js';
import { suiteRedis } from './test-redis.js';

/**
 * A fresh audit directory for every full run, so the audit only judges this run's traffic; a
 * build of this checkout, because tests that start gateway processes run what operators run:
 * `node dist/main.js`, which loads the common package and starts the sandbox package from their
 * builds (common/dist, sandbox/dist), so those are built first; and the Redis the suite shares (a private one when none runs), handed to the test
 * workers as TEST_REDIS_URL. Returns the teardown.
 */
export default async function setup(): Promise<() => Promise<void>> {
  rmSync(AUDIT_DIR, { recursive: true, force: true });
  const tsc = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
  for (const project of [
    join('common', 'tsconfig.build.json'),
    join('sandbox', 'tsconfig.build.json'),
    'tsconfig.build.json',
  ])
    execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  // A single file run on a fresh clone (npx vitest run test/…) before `npm test` or `npm run
  // codegen` ever ran: the typed operations the tests and the example app import.
  generateIfMissing();
  const redis = await suiteRedis();
  process.env.TEST_REDIS_URL = redis.url;
  return () => redis.stop();
}
