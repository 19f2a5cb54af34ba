import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_DIR } from '../support/audit.js';

/**
 * Runs after the whole suite (second phase of `npm test`). Every response any test's browser
 * received, every log line any gateway wrote, and every secret in play were recorded; no secret
 * may appear anywhere a client or a log reader could see it.
 */
function readJsonLines(prefix: string): unknown[] {
  if (!existsSync(AUDIT_DIR)) return [];
  return readdirSync(AUDIT_DIR)
    .filter((name) => name.startsWith(prefix))
    .flatMap((name) =>
      readFileSync(join(AUDIT_DIR, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown),
    );
}

interface Secret {
  label: string;
  value: string;
}

function findLeaks(secrets: Secret[], haystacks: Array<{ where: string; text: string }>): string[] {
  const leaks: string[] = [];
  for (const { where, text } of haystacks) {
    for (const secret of secrets) if (text.includes(secret.value)) leaks.push(`${secret.label} in ${where}`);
  }
  return leaks;
}

describe('no secret leaves the gateway', () => {
  const secrets = new Map<string, Secret>();
  for (const batch of readJsonLines('secrets-') as Secret[][])
    for (const secret of batch) secrets.set(secret.value, secret);
  const traffic = readJsonLines('traffic-') as Array<{ url: string; status: number; headers: unknown; body: string }>;
  const logs = readJsonLines('logs-') as string[];

  it('has a whole suite of traffic to judge', () => {
    const tokens = [...secrets.values()].filter((secret) => secret.label === 'user access token');
    expect(tokens.length).toBeGreaterThanOrEqual(20);
    expect(traffic.length).toBeGreaterThanOrEqual(200);
    expect(logs.length).toBeGreaterThanOrEqual(200);
    // Signed-in GraphQL answers are part of it, not only refusals.
    expect(traffic.some((t) => t.url.endsWith('/graphql') && t.status === 200 && t.body.includes('"me"'))).toBe(true);
    expect(traffic.some((t) => /gw_session_\d+=/.test(JSON.stringify(t.headers)))).toBe(true);
    expect(traffic.some((t) => t.url.startsWith('ws') && t.body.includes('paymentUpdated'))).toBe(true);
  });

  it('includes upstream errors that quoted the credentials back (the sandbox echo fault)', () => {
    // test/hardening/credential-echo.test.ts makes core and enrichment echo every header and the
    // body; the gateway's scrubbed versions of those messages must be among what is judged here.
    expect(logs.some((line) => line.includes('[redacted]') && line.includes('Refused request with'))).toBe(true);
    expect(traffic.some((t) => t.body.includes('[redacted]'))).toBe(true);
  });

  it('finds no user access token, app secret or enrichment key in any response (status, headers, body)', () => {
    const haystacks = traffic.map((t) => ({
      where: `${t.status} ${t.url.replace(/\?.*/, '')}`,
      text: JSON.stringify(t),
    }));
    expect(findLeaks([...secrets.values()], haystacks)).toEqual([]);
  });

  it('finds none in any log line', () => {
    const haystacks = logs.map((line, index) => ({ where: `log line ${index}`, text: line }));
    expect(findLeaks([...secrets.values()], haystacks)).toEqual([]);
  });

  it('would notice a leak (the scanner itself can fail)', () => {
    const canary = { label: 'canary', value: 'user_token_canary123456' };
    expect(
      findLeaks([canary], [{ where: 'planted', text: JSON.stringify({ headers: { x: `Bearer ${canary.value}` } }) }]),
    ).toEqual(['canary in planted']);
  });
});
