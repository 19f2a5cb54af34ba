import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The project's Markdown documentation: the front page, the contributing guide and docs/. */
export function documentationFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return ['README.md', 'CONTRIBUTING.md', ...walk('docs')];
}

export interface CodeBlock {
  language: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
}

/** Fenced code blocks (``` only), with their language and where they start. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { language: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((line, index) => {
    const fence = /^\s*```(\S*)/.exec(line);
    if (open) {
      if (/^\s*```\s*$/.test(line)) {
        blocks.push({ language: open.language, line: open.line, text: open.lines.join('\n') });
        open = undefined;
      } else open.lines.push(line);
    } else if (fence) open = { language: fence[1]!, line: index + 1, lines: [] };
  });
  return blocks;
}

/** The text outside fenced blocks and inline code spans: where links and headings are. */
export function prose(markdown: string): string {
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line.replace(/(`+)[\s\S]*?\1/g, '');
    })
    .join('\n');
}

/**
 * The anchors GitHub gives a file's headings: lower case, punctuation and symbols dropped (letters,
 * digits, `_` and `-` kept), each space a hyphen, repeats numbered `-1`, `-2`.
 */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every link target in the prose: inline `[text](target)`, images, and reference definitions. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const references = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1]!);
  return [...inline, ...references];
}
