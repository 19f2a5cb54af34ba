import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readinessReport, type ReadinessCheck } from '../../src/accreditation/readiness-checks.js';
import { readinessLogLine } from '../../src/accreditation/readiness-log.js';
import { loadConfig } from '../../src/config/config.js';
import { PRODUCTION_SETTINGS as PRODUCTION } from '../support/production-settings.js';

const NOW = Date.parse('2026-11-22T00:00:00Z');

const verdicts = (checks: ReadinessCheck[]) => Object.fromEntries(checks.map((check) => [check.id, check.verdict]));

describe('the accreditation readiness report', () => {
  it('on the embedded sandbox: every requirement an accreditation would refuse fails, not warns', () => {
    const checks = readinessReport(loadConfig({}), { now: NOW, leakAuditPresent: true });
    expect(verdicts(checks)).toEqual({
      'encrypted-traffic': 'fail',
      'tokens-server-side': 'pass',
      'tokens-at-rest': 'pass',
      'durable-state': 'fail',
      'secret-leak-audit': 'pass',
      'oauth-state': 'pass',
      'multi-factor': 'fail',
      'mfa-expiry': 'pass',
      'consumer-controls': 'pass',
      'data-retention': 'pass',
      'privacy-notice': 'fail',
      'consumer-information': 'pass',
      'penetration-test': 'fail',
      'trusted-documents': 'warn',
      'native-clients': 'pass',
    });
    for (const check of checks.filter((c) => c.verdict !== 'pass'))
      expect(check.fix, check.id).toEqual(expect.any(String));
  });

  it('on a production-like configuration: everything configured passes; a read-only MFA policy warns', () => {
    const checks = readinessReport(loadConfig(PRODUCTION), { now: NOW, leakAuditPresent: false });
    expect(verdicts(checks)).toMatchObject({
      'encrypted-traffic': 'pass',
      'tokens-at-rest': 'pass',
      'secret-leak-audit': 'warn',
      'privacy-notice': 'pass',
      'penetration-test': 'pass',
      'multi-factor': 'pass',
      'mfa-expiry': 'pass',
      'consumer-information': 'pass',
    });
    expect(checks.filter((check) => check.verdict === 'fail')).toEqual([]);
    expect(checks.find((check) => check.id === 'multi-factor')!.detail).toContain('https://login.money.example.co.nz');
    const readOnly = readinessReport(loadConfig({ ...PRODUCTION, MFA_POLICY: 'read-only' }), {
      now: NOW,
      leakAuditPresent: true,
    });
    expect(verdicts(readOnly)['multi-factor']).toBe('warn');
    // A backend-for-frontend should run only its app's operations: warned until TRUSTED_DOCUMENTS is set.
    expect(verdicts(checks)['trusted-documents']).toBe('warn');
    const locked = readinessReport(
      loadConfig({ ...PRODUCTION, TRUSTED_DOCUMENTS: '/srv/app/persisted-documents.json' }),
      {
        now: NOW,
        leakAuditPresent: true,
      },
    );
    expect(locked.find((check) => check.id === 'trusted-documents')).toMatchObject({
      verdict: 'pass',
      detail: expect.stringContaining('/srv/app/persisted-documents.json'),
    });
    // Each problem names what fixes it.
    for (const check of [...checks, ...readOnly].filter((c) => c.verdict !== 'pass'))
      expect(check.fix, check.id).toEqual(expect.any(String));
  });

  it('checks the native clients: none is fine, a plain-http audience fails, and the provider side is left to confirm', () => {
    const verdictOf = (env: Record<string, string>) =>
      readinessReport(loadConfig({ ...PRODUCTION, ...env }), { now: NOW, leakAuditPresent: true }).find(
        (check) => check.id === 'native-clients',
      )!;
    expect(verdictOf({}).verdict).toBe('pass');
    expect(
      verdictOf({ NATIVE_CLIENT_IDS: 'nz.example.app', ACCESS_TOKEN_AUDIENCE: 'http://gateway.internal' }),
    ).toMatchObject({
      verdict: 'fail',
      fix: expect.stringContaining('ACCESS_TOKEN_AUDIENCE'),
    });
    expect(verdictOf({ NATIVE_CLIENT_IDS: 'nz.example.app' })).toMatchObject({
      verdict: 'warn',
      fix: expect.stringContaining('PKCE with S256'),
    });
  });

  it('fails a missing or year-old penetration test, a missing privacy notice and plain http against the live platform', () => {
    const stale = readinessReport(
      loadConfig({
        ...PRODUCTION,
        PUBLIC_URL: 'http://money.example.co.nz',
        PENTEST_DATE: '2025-11-01',
        PRIVACY_NOTICE_URL: '',
      }),
      { now: NOW, leakAuditPresent: true },
    );
    expect(verdicts(stale)).toMatchObject({
      'encrypted-traffic': 'fail',
      'privacy-notice': 'fail',
      'penetration-test': 'fail',
    });
    expect(stale.find((c) => c.id === 'penetration-test')!.detail).toContain('more than 12 months ago');
    expect(() => loadConfig({ PENTEST_DATE: '2026-13-01' })).toThrow(/PENTEST_DATE/);
    expect(() => loadConfig({ EVENT_RETENTION_SECONDS: '604800' })).not.toThrow();
    expect(
      verdicts(
        readinessReport(loadConfig({ EVENT_RETENTION_SECONDS: '604800' }), { now: NOW, leakAuditPresent: true }),
      )['data-retention'],
    ).toBe('warn');
  });

  it('lists how long accounts and transactions are kept, or that they are not', () => {
    const detail = (env: Record<string, string>) =>
      readinessReport(loadConfig(env), { now: NOW, leakAuditPresent: true }).find((c) => c.id === 'data-retention')!
        .detail;
    expect(detail({ USER_DATA_MAX_AGE_SECONDS: '900' })).toContain(
      'kept accounts and transactions reconciled after 15 min, deleted 30 min after their last change',
    );
    expect(detail({ USER_DATA_STORE: 'off' })).toContain('accounts and transactions not kept');
  });

  it('warns of events kept longer than needed: past the platform’s retry horizon and the kept data’s life', () => {
    const retention = (env: Record<string, string>) =>
      readinessReport(loadConfig({ ...PRODUCTION, ...env }), { now: NOW, leakAuditPresent: true }).find(
        (check) => check.id === 'data-retention',
      )!;
    // Kept data lives twice USER_DATA_MAX_AGE_SECONDS on Redis, and its events must outlive it (a settings rule).
    const twoDays = { USER_DATA_STORE: 'redis', USER_DATA_MAX_AGE_SECONDS: '172800' };
    expect(retention({ ...twoDays, EVENT_RETENTION_SECONDS: '345600' }).verdict).toBe('pass');
    expect(retention({ ...twoDays, EVENT_RETENTION_SECONDS: '432000' })).toMatchObject({
      verdict: 'warn',
      fix: 'EVENT_RETENTION_SECONDS=345600 or less',
    });
    expect(retention({ EVENT_RETENTION_SECONDS: '345600' })).toMatchObject({
      verdict: 'warn',
      fix: 'EVENT_RETENTION_SECONDS=259200 or less',
    });
  });

  it('prints the report from the built gateway and exits non-zero when something fails', async () => {
    const run = async (env: Record<string, string>) => {
      const child = spawn(process.execPath, ['dist/accreditation/main.js'], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      return { code, output };
    };
    // The embedded defaults (plain http, state in memory, the sandbox's identity provider) are for
    // development: a CI gate running the report on them must stop, and be told why.
    const sandbox = await run({});
    expect(sandbox.code, sandbox.output).toBe(1);
    for (const id of ['encrypted-traffic', 'durable-state', 'multi-factor', 'privacy-notice', 'penetration-test'])
      expect(sandbox.output).toMatch(new RegExp(`FAIL {2}${id}:`));
    expect(sandbox.output).toMatch(/9 pass, 1 warn, 5 fail/);
    const production = await run(PRODUCTION);
    expect(production.code, production.output).toBe(0);
    expect(production.output).toMatch(/PASS {2}encrypted-traffic/);
    expect(production.output).toMatch(/PASS {2}multi-factor/);
    const untested = await run({ ...PRODUCTION, PENTEST_DATE: '' });
    expect(untested.code).toBe(1);
    expect(untested.output).toMatch(/FAIL {2}penetration-test/);
    expect(untested.output).toContain('To fix:');
  });

  it('is logged once at start-up; an https public URL brings HSTS on every response', async () => {
    const { startGateway } = await import('../support/gateway.js');
    const secure = await startGateway({ PUBLIC_URL: 'https://money.example.co.nz' });
    const hsts = (await fetch(`${secure.app.listenUrl}/healthz`)).headers.get('strict-transport-security');
    expect(hsts).toBe('max-age=31536000; includeSubDomains');
    const gateway = await startGateway();
    expect((await fetch(`${gateway.url}/healthz`)).headers.get('strict-transport-security')).toBeNull();
    const line = gateway.logs.find((entry) => String(entry.msg).startsWith('accreditation readiness'));
    // A first start on a laptop: what is met, and that the rest is for production; no "fail" on the first screen.
    expect(line).toMatchObject({ met: 9, forProduction: 6 });
    expect(line?.msg).toBe(
      'accreditation readiness: 9 of 15 checks met on the embedded sandbox; the other 6 are for production (npm run readiness lists each with its setting)',
    );
    expect(JSON.stringify(line)).not.toMatch(/fail/i);
  });

  it('words its start-up line for where the gateway runs: verdicts and fixes wherever it may be production', () => {
    const line = (env: Record<string, string>) => {
      const config = loadConfig(env);
      return readinessLogLine(config, readinessReport(config, { now: NOW, leakAuditPresent: true }));
    };
    // A standalone sandbox on this machine (npm run dev, npm run sandbox) is development too.
    const dev = line({ ...PRODUCTION, CORE_API_URL: 'http://127.0.0.1:4010', PUBLIC_URL: 'http://localhost:4000' });
    expect(dev.message).toMatch(
      /^accreditation readiness: \d+ of 15 checks met on a platform sandbox on this machine;/,
    );
    expect(dev.fields).not.toHaveProperty('fail');
    // Anywhere else, an operator reads the verdicts and what fixes each.
    const production = line({ ...PRODUCTION, PENTEST_DATE: '' });
    expect(production.message).toBe('accreditation readiness (npm run readiness for the full report)');
    expect(production.fields).toMatchObject({
      pass: expect.any(Number),
      fail: 1,
      checks: expect.arrayContaining([{ id: 'penetration-test', verdict: 'fail', fix: expect.any(String) }]),
    });
  });
});
