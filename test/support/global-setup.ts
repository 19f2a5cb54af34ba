import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIT_DIR } from './audit.js';

/**
 * A fresh audit directory for every full run, so the audit only judges this run's traffic; and a
 * build of this checkout, because tests that start gateway processes run what operators run:
 * `node dist/main.js`, which starts the sandbox package from its build (sandbox/dist), so that is
 * built first.
 */
export default function setup(): void {
  rmSync(AUDIT_DIR, { recursive: true, force: true });
  const tsc = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join('sandbox', 'tsconfig.build.json')], { stdio: 'inherit' });
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
