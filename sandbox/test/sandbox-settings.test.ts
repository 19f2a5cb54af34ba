import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STANDALONE_SETTINGS } from '../src/standalone-settings.js';

/** The package's own files, wherever vitest runs from (here or the repository root). */
const read = (file: string) => readFileSync(join(__dirname, '..', file), 'utf8');

const names = (text: string, pattern: RegExp) => [...new Set([...text.matchAll(pattern)].map((m) => m[1]!))].sort();

describe('the standalone sandbox settings', () => {
  it('are the same in the code, the README and .env.example', () => {
    const code = Object.keys(STANDALONE_SETTINGS).sort();
    expect(code).toContain('SANDBOX_SEED');
    expect(names(read('README.md'), /`((?:SANDBOX_|PLATFORM_|LOG_)[A-Z_]+)`/g)).toEqual(code);
    expect(names(read('.env.example'), /^# ([A-Z_]+)=/gm)).toEqual(code);
  });
});
