import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  hasInstallScript?: boolean;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { allowScripts?: Record<string, boolean> };

/** The locked packages with an install script, by name (`node_modules/a/node_modules/b` is `b`). */
function withInstallScripts(): string[] {
  const names = Object.entries(lock.packages)
    .filter(([path, entry]) => path.includes('node_modules/') && entry.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  return [...new Set(names)].sort();
}

/**
 * npm blocks dependencies' install scripts until the project decides (`allowScripts` in
 * package.json); an undecided one makes every `npm ci` end with a warning a newcomer cannot judge.
 */
describe('install scripts of dependencies', () => {
  it('each one is decided in package.json (allowScripts), and no decision names a package without one', () => {
    const decided = Object.keys(manifest.allowScripts ?? {})
      .map((key) => key.replace(/(.)@.*$/, '$1'))
      .sort();
    expect(withInstallScripts().length).toBeGreaterThan(0);
    expect(decided).toEqual(withInstallScripts());
  });
});
