import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean }>;
};

describe('the Node versions the README promises', () => {
  it('are supported by every package the lockfile installs, dev toolchain included (no EBADENGINE)', () => {
    // The oldest Node the project promises: every locked package must declare support for it.
    const oldest = semver.minVersion(manifest.engines.node)!.version;
    const unsupported = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .filter(([, entry]) => !semver.satisfies(oldest, (entry.engines as { node: string }).node))
      .map(([path, entry]) => `${path} needs node ${(entry.engines as { node: string }).node}`);
    expect(unsupported).toEqual([]);
  });
});
