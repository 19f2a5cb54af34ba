import { describe, expect, it } from 'vitest';
import { readStandaloneSettings, STANDALONE_SETTINGS, StandaloneSettingsError } from '../src/standalone-settings.js';

function issuesOf(env: Record<string, string>): StandaloneSettingsError {
  try {
    readStandaloneSettings(env);
  } catch (error) {
    if (error instanceof StandaloneSettingsError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('the standalone sandbox settings', () => {
  it('fall back to their defaults, blank counting as unset', () => {
    const settings = readStandaloneSettings({ SANDBOX_CORE_PORT: ' ', LOG_LEVEL: '' });
    expect(settings).toMatchObject({
      SANDBOX_HOST: '127.0.0.1',
      SANDBOX_CORE_PORT: 4010,
      SANDBOX_ENRICHMENT_PORT: 4011,
      SANDBOX_IDENTITY_PORT: 4012,
      SANDBOX_SEED: 'open-finance-sandbox',
      SANDBOX_REDIRECT_URIS: ['http://localhost:4000/auth/callback'],
      SANDBOX_WEBHOOK_URL: 'http://localhost:4000/webhooks',
      SANDBOX_WEBHOOK_TIME_SCALE: 120,
      PLATFORM_HEADER_PREFIX: 'X-Service',
      LOG_LEVEL: 'info',
    });
    expect(settings.SANDBOX_APP_TOKEN).toBeUndefined();
    expect(settings.SANDBOX_IDENTITY_ISSUER).toBeUndefined();
  });

  it('reads each value in its type', () => {
    expect(
      readStandaloneSettings({
        SANDBOX_CORE_PORT: '0',
        SANDBOX_IDENTITY_PORT: '65535',
        SANDBOX_REDIRECT_URIS: 'http://a.test/auth/callback, https://b.test/auth/callback',
        SANDBOX_WEBHOOK_TIME_SCALE: '1',
        PLATFORM_HEADER_PREFIX: 'X-Akahu',
        SANDBOX_IDENTITY_ISSUER: 'http://sandbox:4012',
      }),
    ).toMatchObject({
      SANDBOX_CORE_PORT: 0,
      SANDBOX_IDENTITY_PORT: 65_535,
      SANDBOX_REDIRECT_URIS: ['http://a.test/auth/callback', 'https://b.test/auth/callback'],
      SANDBOX_WEBHOOK_TIME_SCALE: 1,
      PLATFORM_HEADER_PREFIX: 'X-Akahu',
      SANDBOX_IDENTITY_ISSUER: 'http://sandbox:4012',
    });
  });

  it('names every bad key in one error, on one line, without echoing a value', () => {
    const error = issuesOf({
      SANDBOX_CORE_PORT: 'abc',
      SANDBOX_ENRICHMENT_PORT: '70000',
      SANDBOX_REDIRECT_URIS: 'not-a-url',
      SANDBOX_WEBHOOK_TIME_SCALE: '0',
      PLATFORM_HEADER_PREFIX: 'Service',
      LOG_LEVEL: 'loud',
      SANDBOX_APP_SECRET: 'two words',
    });
    expect(error.issues.map((issue) => issue.key)).toEqual([
      'SANDBOX_CORE_PORT',
      'SANDBOX_ENRICHMENT_PORT',
      'SANDBOX_APP_SECRET',
      'SANDBOX_REDIRECT_URIS',
      'SANDBOX_WEBHOOK_TIME_SCALE',
      'PLATFORM_HEADER_PREFIX',
      'LOG_LEVEL',
    ]);
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/^invalid sandbox settings: SANDBOX_CORE_PORT must be a port from 0 to 65535; /);
    for (const value of ['abc', '70000', 'not-a-url', 'loud', 'two words']) expect(error.message).not.toContain(value);
  });

  it('declares each setting once, with a reader', () => {
    for (const [name, entry] of Object.entries(STANDALONE_SETTINGS)) {
      expect(name).toMatch(/^(SANDBOX_|PLATFORM_|LOG_)[A-Z_]+$/);
      expect(typeof entry.read).toBe('function');
    }
  });
});
