import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from '../support/source-files.js';

/**
 * The Words table of docs/architecture.md, held against the code: identifiers that said the
 * opposite of a word's one meaning, or that a word's owner should be the only one to use. Checked
 * on the code with its comments and string literals taken out (prose is the docs' to keep).
 */
const BANNED: Array<{ identifier: RegExp; why: string; except?: RegExp }> = [
  {
    identifier: /\baccessToken\b/,
    why: 'the platform’s token is platformToken; an access token is the app’s own (RFC 9068)',
  },
  { identifier: /\bsessionId\b/, why: 'a session’s id is its session key (sessionKey)' },
  {
    identifier: /\b(?!\w*[uU]pstream)\w*[sS]tream\w*\b/,
    why: 'a stream is an HTTP subscription stream; the event log on Redis is a log (a Redis Stream)',
    except: /^src\/(server|app|operation-core|config)\/|createSourceEventStream/,
  },
  {
    identifier: /\brelease\b/,
    why: 'release means giving back a lease or a claim only',
    except:
      /^src\/(webhooks\/(delivery-claim|\w+-delivery-ledger|delivery-ledger)|event-log\/delivery-marks|idempotency\/)/,
  },
  {
    identifier: /\b(userTag|taggedKeys)\b/,
    why: 'the key format belongs to redis/: auth/ asks redis-keys for a key and never builds one',
    except: /^src\/(?!auth\/)/,
  },
];

/** The code of a file without its comments and string literals (template literals' text included). */
function codeOf(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/[^\n]*/g, '')
    .replace(/'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`/g, "''");
}

describe('the words of docs/architecture.md, in the code', () => {
  it('uses no identifier that says the opposite of a word’s one meaning', () => {
    const found: string[] = [];
    for (const file of sourceFiles('src')) {
      const path = relative('.', file).replaceAll('\\', '/');
      const lines = codeOf(readFileSync(file, 'utf8')).split('\n');
      for (const { identifier, why, except } of BANNED)
        lines.forEach((line, index) => {
          const match = identifier.exec(line);
          if (match && !except?.test(path) && !except?.test(match[0]))
            found.push(`${path}:${index + 1} ${match[0]}: ${why}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('sees through comments and strings, not past code', () => {
    const code = codeOf("const a = 'accessToken'; // sessionId\n/* releases */ const platformToken = 1;");
    expect(code).not.toMatch(/accessToken|sessionId|releases/);
    expect(code).toMatch(/platformToken/);
  });
});
