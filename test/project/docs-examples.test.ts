import { readFileSync } from 'node:fs';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { codeBlocks, documentationFiles } from '../support/markdown-docs.js';

/** The first line of a block that is invalid on purpose (it shows an error). Keep such blocks rare. */
const INVALID_ON_PURPOSE = '# docs-examples: invalid on purpose';

const examples = documentationFiles().flatMap((file) =>
  codeBlocks(readFileSync(file, 'utf8'))
    .filter((block) => block.language === 'graphql')
    .map((block) => ({ where: `${file}:${block.line}`, text: block.text })),
);

/** Every problem of one document against the schema: a syntax error, or each validation error. */
function problemsOf(text: string, schema = buildSchema(readFileSync('schema.graphql', 'utf8'))): string[] {
  let document;
  try {
    document = parse(text);
  } catch (error) {
    return [(error as Error).message];
  }
  return validate(schema, document).map((error) => error.message);
}

describe('GraphQL examples in the documentation', () => {
  it('are found in the README and the guides', () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect(examples.some((example) => example.where.startsWith('README.md:'))).toBe(true);
  });

  const checked = examples.filter((example) => !example.text.trimStart().startsWith(INVALID_ON_PURPOSE));
  it.each(checked)('$where parses and validates against schema.graphql', ({ text }) => {
    expect(problemsOf(text)).toEqual([]);
  });

  it('would notice a field the schema does not have, and a syntax error', () => {
    expect(problemsOf('query { me { id nickname } }')).toEqual([expect.stringContaining('nickname')]);
    expect(problemsOf('query { me { id }')).toEqual([expect.stringContaining('Syntax Error')]);
  });
});
