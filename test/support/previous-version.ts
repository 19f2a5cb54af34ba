import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The version this one rolls from: what shares the Redis with it during a rolling deploy. */
export const PREVIOUS_VERSION = '8c50a16';

/**
 * The built entry (`dist/main.js`) of an earlier version, as operators run it, built once per
 * machine in the temporary directory from this repository's history (`git archive`), with this
 * checkout's installed packages (the same lock file) and its own common and sandbox packages.
 * Undefined, with the reason, when this clone does not have the commit (a shallow clone).
 */
export function previousVersion(commit = PREVIOUS_VERSION): { entry: string } | { missing: string } {
  const root = process.cwd();
  const dir = join(tmpdir(), `ofg-version-${commit}`);
  const entry = join(dir, 'dist', 'main.js');
  if (existsSync(join(dir, '.built'))) return { entry };
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: root, stdio: 'ignore' });
  } catch {
    return { missing: `commit ${commit} is not in this clone's history (a shallow clone?)` };
  }
  // Built aside and moved into place whole, so two workers building at once never see half a build.
  const staging = `${dir}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  execSync(`git archive --format=tar ${commit} | tar -x -C "${staging}"`, { cwd: root, stdio: 'ignore' });
  linkPackages(join(root, 'node_modules'), join(staging, 'node_modules'));
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const project of [
    join('common', 'tsconfig.build.json'),
    join('sandbox', 'tsconfig.build.json'),
    'tsconfig.build.json',
  ])
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: staging, stdio: 'ignore' });
  writeFileSync(join(staging, '.built'), commit);
  if (existsSync(join(dir, '.built'))) rmSync(staging, { recursive: true, force: true });
  else {
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  return { entry };
}

/** This checkout's packages, linked; the version's own workspace packages in place of ours (relative: the tree moves). */
function linkPackages(installed: string, target: string): void {
  mkdirSync(join(target, '@open-finance-gateway'), { recursive: true });
  for (const name of readdirSync(installed)) {
    if (name === '@open-finance-gateway') continue;
    symlinkSync(join(installed, name), join(target, name));
  }
  for (const own of ['common', 'sandbox'])
    symlinkSync(join('..', '..', own), join(target, '@open-finance-gateway', own));
}
