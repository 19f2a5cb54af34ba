import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** What `npm run codegen` writes (typed operations for the tests and the example app); never committed. */
export const GENERATED = ['test/__generated__/graphql.ts', 'examples/web/src/__generated__/persisted-documents.json'];

/**
 * Runs `npm run codegen` when any of its outputs is missing: a fresh clone, before `npm test` (which
 * always runs it first) ever ran. The test suite's set-up, `typecheck` and `lint` start with it.
 */
export function generateIfMissing(): void {
  if (GENERATED.some((file) => !existsSync(file)))
    execFileSync('npm', ['run', 'codegen', '--silent'], { stdio: 'inherit' });
}
