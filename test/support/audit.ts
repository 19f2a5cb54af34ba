import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Sandbox } from '@open-finance-gateway/sandbox';

/**
 * Everything the suite's clients see, every log line the gateway writes, and every secret in
 * play are appended here; the audit run (vitest.audit.config.mts) then proves no secret appears
 * in any response or log line across the whole suite.
 */
export const AUDIT_DIR = resolve(__dirname, '../../.test-audit');

function append(kind: 'traffic' | 'logs' | 'secrets', record: unknown): void {
  // Log lines are stored as JSON strings, traffic and secrets as objects: one JSON value per line.
  mkdirSync(AUDIT_DIR, { recursive: true });
  appendFileSync(join(AUDIT_DIR, `${kind}-${process.pid}.jsonl`), `${JSON.stringify(record)}\n`);
}

export function recordTraffic(record: {
  url: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}): void {
  append('traffic', record);
}

export function recordLogLine(line: string): void {
  append('logs', line);
}

export function recordSecrets(secrets: { label: string; value: string }[]): void {
  append('secrets', secrets);
}

/** The secrets a sandbox holds or handed out (its app and enrichment credentials, every user token): none may leak. */
export function recordSandboxSecrets(sandbox: Sandbox): void {
  recordSecrets([
    { label: 'app secret', value: sandbox.credentials.appSecret },
    { label: 'enrichment key', value: sandbox.credentials.enrichmentKey },
    { label: 'identity client secret', value: sandbox.identity.clientSecret },
    ...sandbox.issuedTokens().map((value) => ({ label: 'user access token', value })),
  ]);
}
