import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderEnvExample, renderSettingsReference } from '../../scripts/settings-docs-render.js';
import { SETTINGS } from '../../src/config/settings.js';

const tableNames = () => SETTINGS.map((entry) => entry.name).sort();

/** Every setting the configuration code maps or checks: `v.PORT`, `values.REDIS_URL`, `given('APP_TOKEN')`, … */
function keysReadByCode(): string[] {
  const source = ['src/config/config.ts', 'src/config/config-rules.ts']
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const reads = [
    ...source.matchAll(/\b(?:v|values)\.([A-Z][A-Z0-9_]+)\b/g),
    ...source.matchAll(/given\('([A-Z][A-Z0-9_]+)'\)/g),
  ];
  return [...new Set(reads.map((match) => match[1]!))].sort();
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

describe('the settings table, the code, .env.example and the settings reference agree', () => {
  it('declares every setting once, and the configuration code uses every one it declares', () => {
    expect(new Set(tableNames()).size).toBe(SETTINGS.length);
    expect(keysReadByCode()).toEqual(tableNames());
  });

  it('has docs/reference/settings.md and .env.example exactly as npm run settings:docs writes them', () => {
    expect(readFileSync('docs/reference/settings.md', 'utf8')).toBe(renderSettingsReference());
    expect(readFileSync('.env.example', 'utf8')).toBe(renderEnvExample());
  });

  it('lists every setting in .env.example and nothing else', () => {
    const example = [
      ...new Set(
        [...readFileSync('.env.example', 'utf8').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]!),
      ),
    ].sort();
    expect(example).toEqual(tableNames());
  });

  it('gives every setting a heading in docs/reference/settings.md and documents nothing else', () => {
    expect([...documentedSettings().keys()].sort()).toEqual(tableNames());
  });

  it('states the default, the bounds and the feature of every setting', () => {
    const incomplete = [...documentedSettings()]
      .filter(([, body]) => !/^- \*\*Default:\*\* .+\n- \*\*Bounds:\*\* .+\n- \*\*Used by:\*\* .+$/m.test(body))
      .map(([name]) => name);
    expect(incomplete).toEqual([]);
  });
});
