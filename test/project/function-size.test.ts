import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parse } from '@babel/parser';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.js';

/**
 * How long a function of src/ may be (CONTRIBUTING.md, "Code"): at most 80 lines of its own (its
 * lines less those of the functions written inside it) and 150 lines whole. A function that
 * grows past them holds more than one idea: split it into named steps.
 */
const OWN_LINES = 80;
const WHOLE_LINES = 150;

const FUNCTIONS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ObjectMethod',
  'ClassMethod',
  'ClassPrivateMethod',
]);

interface Node {
  type: string;
  loc?: { start: { line: number }; end: { line: number } } | null;
  id?: { name?: string } | null;
  key?: { name?: string } | null;
  [field: string]: unknown;
}

interface Measured {
  where: string;
  name: string;
  whole: number;
  nested: number;
}

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** Every function of a source text, with its whole length and the lines of the functions inside it. */
function functionsIn(source: string, file: string): Measured[] {
  const program = parse(source, {
    sourceType: 'module',
    plugins: ['typescript', 'decorators-legacy'],
  }).program as unknown as Node;
  const found: Measured[] = [];
  const visit = (node: Node, enclosing: Measured | undefined): void => {
    let inside = enclosing;
    if (FUNCTIONS.has(node.type) && node.loc) {
      const whole = node.loc.end.line - node.loc.start.line + 1;
      inside = {
        where: `${relative('.', file)}:${node.loc.start.line}`,
        name: node.id?.name ?? node.key?.name ?? '(anonymous)',
        whole,
        nested: 0,
      };
      if (enclosing) enclosing.nested += whole;
      found.push(inside);
    }
    for (const [field, value] of Object.entries(node)) {
      if (field === 'loc') continue;
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child, inside);
    }
  };
  visit(program, undefined);
  return found;
}

const overLimits = (functions: Measured[]) =>
  functions
    .filter((fn) => fn.whole - fn.nested > OWN_LINES || fn.whole > WHOLE_LINES)
    .map((fn) => `${fn.where} ${fn.name}: ${fn.whole - fn.nested} lines of its own, ${fn.whole} whole`);

describe('function size', () => {
  it(`keeps every function of src/ within ${OWN_LINES} lines of its own and ${WHOLE_LINES} whole`, () => {
    expect(overLimits(sourceFiles('src').flatMap((file) => functionsIn(readFileSync(file, 'utf8'), file)))).toEqual([]);
  });

  it('counts a function written inside another toward the outer one only as a whole', () => {
    const lines = (count: number) =>
      Array.from({ length: count }, (_, line) => `  const v${line} = ${line};`).join('\n');
    const nested = `function outer() {\n  function inner() {\n${lines(85)}\n  }\n  return inner;\n}\n`;
    expect(overLimits(functionsIn(nested, 'nested.ts'))).toEqual(['nested.ts:2 inner: 87 lines of its own, 87 whole']);
    const long = `const handler = async () => {\n${lines(152)}\n};\n`;
    expect(overLimits(functionsIn(long, 'long.ts'))).toEqual([
      'long.ts:1 (anonymous): 154 lines of its own, 154 whole',
    ]);
  });
});
