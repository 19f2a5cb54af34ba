import type { Setting } from '../src/config/setting-types.js';
import { SETTING_GROUPS } from '../src/config/settings.js';

/**
 * Renders the settings reference (docs/reference/settings.md) and .env.example from the settings
 * table, so neither can drift from what the gateway parses. Pure: `npm run settings:docs` writes
 * the files, test/project/settings-agreement.test.ts compares them.
 */

const WIDTH = 100;

const REFERENCE_INTRO = `# Settings

The gateway reads environment variables only, validated once at start. A bad value stops the
process (exit code 78) with one message that names every bad key; secrets are never echoed.
\`.env.example\` lists every setting. With a file, use \`node --env-file=.env dist/main.js\`.

With no settings at all the gateway runs on the embedded sandbox. Pointing it at the live
platform: [production checklist](../operations/production-checklist.md).

Each setting below is a heading with the same three lines: **Default** (what applies when it is
unset), **Bounds** (what the gateway accepts; anything else stops it at start) and **Used by** (the
feature that reads it), then what it does; a renamed setting has a fourth, **Formerly**. This page
and \`.env.example\` are generated from the settings table (\`src/config/settings/\`) by
\`npm run settings:docs\`; \`test/project/settings-agreement.test.ts\` fails when they differ from it.
`;

const ENV_INTRO = `# Copy to .env (or set in your deployment). Leave CORE_API_URL and ENRICHMENT_API_URL unset to run
# on the embedded platform sandbox; then nothing below is required.
# Generated from src/config/settings/ by \`npm run settings:docs\`: edit the table, not this file.
`;

/** The default as the reference and .env.example show it; undefined when there is none. */
function shownDefault(entry: Setting): string | undefined {
  if (entry.default === undefined) return undefined;
  return Array.isArray(entry.default) ? entry.default.join(',') : String(entry.default);
}

function defaultLine(entry: Setting): string {
  if (entry.defaultText !== undefined) return entry.defaultText;
  const shown = shownDefault(entry);
  if (shown === undefined) return 'none';
  return entry.defaultNote ? `\`${shown}\` ${entry.defaultNote}` : `\`${shown}\``;
}

/** Greedy wrap at WIDTH, never inside a code span. */
function wrap(paragraph: string): string {
  const words: string[] = [];
  for (const word of paragraph.split(' ')) {
    const last = words.at(-1);
    if (last !== undefined && (last.split('`').length - 1) % 2 === 1) words[words.length - 1] = `${last} ${word}`;
    else words.push(word);
  }
  const lines: string[] = [];
  for (const word of words) {
    const line = lines.at(-1);
    if (line !== undefined && line.length + 1 + word.length <= WIDTH) lines[lines.length - 1] = `${line} ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

function formerlyLine(name: string, formerly: string): string {
  return `- **Formerly:** \`${formerly}\`, deprecated: still read while \`${name}\` is unset, with a warning at start; ignored from the next version`;
}

function referenceEntry(entry: Setting): string {
  return [
    `### \`${entry.name}\``,
    '',
    `- **Default:** ${defaultLine(entry)}`,
    `- **Bounds:** ${entry.bounds ?? entry.type.bounds}${entry.boundsNote ?? ''}`,
    `- **Used by:** ${entry.usedBy}`,
    ...(entry.formerly ? [formerlyLine(entry.name, entry.formerly)] : []),
    '',
    entry.description.split('\n\n').map(wrap).join('\n\n'),
  ].join('\n');
}

/** The settings that have a former name, old → new, for an operator upgrading. */
function renamedSection(groups: typeof SETTING_GROUPS): string[] {
  const renamed = groups.flatMap((group): Setting[] => group.settings.filter((entry) => entry.formerly));
  if (renamed.length === 0) return [];
  const rows = renamed.map((entry) => `| \`${entry.formerly}\` | [\`${entry.name}\`](#${entry.name.toLowerCase()}) |`);
  return [
    [
      '## Renamed settings',
      '',
      'These settings have a new name. The old one is still read while the new one is unset, with a',
      'warning at start; the next version ignores it.',
      '',
      '| Old name | New name |',
      '|---|---|',
      ...rows,
      '',
    ].join('\n'),
  ];
}

export function renderSettingsReference(groups: typeof SETTING_GROUPS = SETTING_GROUPS): string {
  const sections = groups.map(
    (group) => `## ${group.title}\n\n${group.settings.map((entry) => referenceEntry(entry)).join('\n\n')}\n`,
  );
  return [REFERENCE_INTRO, ...renamedSection(groups), ...sections].join('\n');
}

/** `# NAME=value`, and the entry's note aligned after it. A secret shows its example, never a value. */
function envLine(entry: Setting): string {
  const value = entry.example ?? (entry.secret ? '' : (shownDefault(entry) ?? ''));
  const line = `# ${entry.name}=${value}`;
  return entry.envNote ? `${line.padEnd(44)} # ${entry.envNote}` : line;
}

export function renderEnvExample(groups: typeof SETTING_GROUPS = SETTING_GROUPS): string {
  const sections = groups.map(
    (group) =>
      `# --- ${group.title} ${'-'.repeat(Math.max(3, WIDTH - 7 - group.title.length))}\n` +
      `${group.settings.map((entry) => envLine(entry)).join('\n')}\n`,
  );
  return [ENV_INTRO, ...sections].join('\n');
}
