import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Every environment variable the config reads: `read.int('PORT', …)`, `read.raw('HOST')`, … */
function keysReadByCode(): string[] {
  const source = readFileSync('src/config/config.ts', 'utf8');
  return [...new Set([...source.matchAll(/read\.\w+\('([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]!))].sort();
}

/** The settings reference: one `### \`NAME\`` heading per setting, each followed by its body. */
function documentedSettings(): Map<string, string> {
  const reference = readFileSync('docs/reference/settings.md', 'utf8');
  const sections = reference.split(/^### /m).slice(1);
  return new Map(
    sections.flatMap((section) => {
      const heading = /^`([A-Z][A-Z0-9_]+)`\n/.exec(section);
      return heading ? [[heading[1]!, section] as const] : [];
    }),
  );
}

describe('the settings the code reads, .env.example and the settings reference agree', () => {
  it('lists every setting in .env.example and nothing else', () => {
    const example = [
      ...new Set(
        [...readFileSync('.env.example', 'utf8').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!),
      ),
    ].sort();
    expect(example).toEqual(keysReadByCode());
  });

  it('gives every setting a heading in docs/reference/settings.md and documents nothing else', () => {
    expect([...documentedSettings().keys()].sort()).toEqual(keysReadByCode());
  });

  it('states the default, the bounds and the feature of every setting', () => {
    const incomplete = [...documentedSettings()]
      .filter(([, body]) => !/^- \*\*Default:\*\* .+\n- \*\*Bounds:\*\* .+\n- \*\*Used by:\*\* .+$/m.test(body))
      .map(([name]) => name);
    expect(incomplete).toEqual([]);
  });
});
