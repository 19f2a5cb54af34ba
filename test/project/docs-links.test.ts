import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentationFiles, headingAnchors, linkTargets } from '../support/markdown-docs.js';

const ROOT = resolve('.');

/** Files beside the repository that a reader of the docs does not have. */
const OUTSIDE_MENTION = /\.\.\/shared\b|shared\/spec\b|engineering-notes/;

/** Why a link in `file` does not lead anywhere inside the repository, or undefined when it does. */
function brokenLink(file: string, target: string, readDoc: (path: string) => string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto: … leave the docs by design
  if (target.startsWith('//')) return 'a protocol-relative URL';
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = decodeURI(pathPart);
  if (path.startsWith('/')) return 'an absolute path (write it relative to the file)';
  const resolved = path === '' ? resolve(file) : resolve(dirname(file), path);
  const inside = relative(ROOT, resolved);
  if (inside.startsWith('..') || normalize(inside) !== inside.replace(/\/$/, ''))
    return 'a path outside the repository';
  if (!existsSync(resolved)) return 'a file that does not exist';
  if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile()) {
    if (!headingAnchors(readDoc(resolved)).has(anchor)) return `no heading for #${anchor}`;
  }
  return undefined;
}

function brokenLinksIn(file: string, markdown: string): string[] {
  const read = (path: string) => readFileSync(path, 'utf8');
  return linkTargets(markdown).flatMap((target) => {
    const problem = brokenLink(file, target, read);
    return problem ? [`${file}: (${target}) is ${problem}`] : [];
  });
}

describe('links in the documentation', () => {
  it('finds the documentation: the front page, CONTRIBUTING.md and every page under docs/', () => {
    const files = documentationFiles();
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', join('docs', 'reference', 'settings.md')]),
    );
  });

  it('lead only to files inside the repository that exist, and to headings that exist', () => {
    const broken = documentationFiles().flatMap((file) => brokenLinksIn(file, readFileSync(file, 'utf8')));
    expect(broken).toEqual([]);
  });

  it('never point outside the repository in code spans either (no ../shared/spec, no notes kept beside it)', () => {
    const mentions = documentationFiles().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (OUTSIDE_MENTION.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(mentions).toEqual([]);
  });

  it('would refuse a missing file, a path leaving the repository, an absolute path and a missing heading', () => {
    const page = [
      '[gone](docs/no-such-page.md)',
      '[spec](../shared/spec/platform-api.md)',
      '[root](/README.md)',
      '[anchor](CONTRIBUTING.md#no-such-heading)',
      '[fine](CONTRIBUTING.md#tests) [web](https://example.com) `[code](nowhere.md)`',
    ].join('\n');
    const problems = brokenLinksIn('README.md', page);
    expect(problems).toEqual([
      'README.md: (docs/no-such-page.md) is a file that does not exist',
      'README.md: (../shared/spec/platform-api.md) is a path outside the repository',
      'README.md: (/README.md) is an absolute path (write it relative to the file)',
      'README.md: (CONTRIBUTING.md#no-such-heading) is no heading for #no-such-heading',
    ]);
  });

  it('gives headings the anchors GitHub gives them', () => {
    const anchors = headingAnchors(
      "# Enrichment: `npm run bench:enrichment`\n## The socket's rules\n## Tests\n## Tests\n",
    );
    expect([...anchors]).toEqual(['enrichment-npm-run-benchenrichment', 'the-sockets-rules', 'tests', 'tests-1']);
  });
});
