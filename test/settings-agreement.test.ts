import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Every environment variable the config reads: `read.int('PORT', …)`, `read.raw('HOST')`, … */
function keysReadByCode(): string[] {
  const source = readFileSync('src/config/config.ts', 'utf8');
  return [...new Set([...source.matchAll(/read\.\w+\('([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]!))].sort();
}

describe('the settings the code reads, .env.example and the README table agree', () => {
  it('lists every setting in .env.example and nothing else', () => {
    const example = [
      ...new Set(
        [...readFileSync('.env.example', 'utf8').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!),
      ),
    ].sort();
    expect(example).toEqual(keysReadByCode());
  });

  it("documents every setting in the README's settings table and nothing else", () => {
    const readme = readFileSync('README.md', 'utf8');
    const table = readme.slice(readme.indexOf('## Settings'), readme.indexOf('### Pointing at the live platform'));
    const documented = [
      ...new Set([...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]!)),
    ].sort();
    expect(documented).toEqual(keysReadByCode());
  });
});
