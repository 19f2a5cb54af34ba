import { describe, expect, it } from 'vitest';
import { ConfigError, configSecrets, loadConfig } from '../../src/config/config.js';
import { PRODUCTION_SETTINGS } from '../support/production-settings.js';

function issuesOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => issue.key);
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('starts on the embedded sandbox with no settings at all', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4000);
    expect(config.core.baseUrl).toBeUndefined();
    expect(config.enrichment.baseUrl).toBeUndefined();
    expect(config.headerPrefix).toBe('X-Service');
    expect(config.enrichment.maxBatch).toBe(100);
    expect(config.graphql.introspection).toBe(true);
  });

  it('names every bad key in one error', () => {
    const env = {
      PORT: 'eighty',
      ENRICHMENT_MAX_BATCH: '0',
      PUBLIC_URL: 'ftp://x',
      PLATFORM_HEADER_PREFIX: 'Service',
      GRAPHIQL_ENABLED: 'maybe',
    };
    expect(issuesOf(env).sort()).toEqual([
      'ENRICHMENT_MAX_BATCH',
      'GRAPHIQL_ENABLED',
      'PLATFORM_HEADER_PREFIX',
      'PORT',
      'PUBLIC_URL',
    ]);
    expect(() => loadConfig(env)).toThrow(/PORT must be a whole number.*\n.*ENRICHMENT_MAX_BATCH/s);
  });

  it('requires every credential once real upstream URLs are set', () => {
    expect(
      issuesOf({ CORE_API_URL: 'https://api.example.test', ENRICHMENT_API_URL: 'https://genie.example.test' }).sort(),
    ).toEqual([
      'APP_SECRET',
      'APP_TOKEN',
      'ENRICHMENT_API_KEY',
      'OAUTH_AUTHORIZE_URL',
      'OIDC_ISSUER',
      'SESSION_SECRET',
    ]);
  });

  it('reads the identity provider and the MFA rules, refusing what the accreditation rules do not allow', () => {
    expect(loadConfig({}).mfa).toEqual({
      policy: 'required',
      acceptedAmr: ['mfa', 'otp', 'sms', 'hwk', 'swk'],
      maxAgeMs: 7_200_000,
    });
    expect(loadConfig({}).identity.issuer).toBeUndefined();
    expect(issuesOf({ OIDC_ISSUER: 'https://login.example.test' }).sort()).toEqual([
      'OIDC_CLIENT_ID',
      'OIDC_CLIENT_SECRET',
    ]);
    expect(issuesOf({ OIDC_CLIENT_ID: 'gateway' })).toEqual(['OIDC_CLIENT_ID']);
    expect(
      issuesOf({ OIDC_ISSUER: 'http://login.example.test', OIDC_CLIENT_ID: 'g', OIDC_CLIENT_SECRET: 's'.repeat(20) }),
    ).toEqual(['OIDC_ISSUER']);
    // Two hours is the rules' maximum; a knowledge factor alone is not multi-factor.
    expect(issuesOf({ MFA_MAX_AGE_SECONDS: '7201' })).toEqual(['MFA_MAX_AGE_SECONDS']);
    expect(issuesOf({ MFA_ACCEPTED_AMR: 'otp,pwd' })).toEqual(['MFA_ACCEPTED_AMR']);
    expect(issuesOf({ MFA_POLICY: 'none' })).toEqual(['MFA_POLICY']);
    // A live session always has a live connection: the idle expiry cannot be shorter than a session.
    expect(issuesOf({ BANK_CONNECTION_IDLE_DAYS: '1', SESSION_MAX_AGE_SECONDS: String(2 * 86_400) })).toEqual([
      'BANK_CONNECTION_IDLE_DAYS',
    ]);
    expect(loadConfig({}).bankConnectionIdleMs).toBe(180 * 86_400_000);
    expect(loadConfig({ MFA_POLICY: 'read-only', MFA_ACCEPTED_AMR: 'hwk, otp' }).mfa).toMatchObject({
      policy: 'read-only',
      acceptedAmr: ['hwk', 'otp'],
    });
  });

  it('checks the form of the enrichment key without echoing it', () => {
    try {
      loadConfig({ ENRICHMENT_API_KEY: 'app_secret_value_should_not_print' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).issues.map((i) => i.key)).toEqual(['ENRICHMENT_API_KEY']);
      expect((error as Error).message).not.toContain('app_secret_value_should_not_print');
    }
    expect(loadConfig({ ENRICHMENT_API_KEY: 'genie_token_abcdefgh1234' }).enrichment.apiKey).toBe(
      'genie_token_abcdefgh1234',
    );
  });

  it('gives the values of the settings marked secret, and no others, to the upstream scrubber', () => {
    const keys = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
    const config = loadConfig({
      SESSION_SECRET: 's'.repeat(40),
      ADMIN_TOKEN: 'a'.repeat(40),
      REDIS_URL: 'redis://:hunter2-secret@cache.internal:6379',
      TOKEN_ENCRYPTION_KEYS: keys,
      APP_NAME: 'Not A Secret App',
    });
    expect([...configSecrets(config)].sort()).toEqual(
      ['s'.repeat(40), 'a'.repeat(40), 'redis://:hunter2-secret@cache.internal:6379', keys].sort(),
    );
    expect(configSecrets(loadConfig({}))).toEqual([]);
  });

  it('accepts a complete live configuration and turns introspection off by default', () => {
    const config = loadConfig({ ...PRODUCTION_SETTINGS, CORE_API_URL: 'https://api.platform.example/' });
    expect(config.core.baseUrl).toBe('https://api.platform.example');
    expect(config.identity).toMatchObject({ issuer: PRODUCTION_SETTINGS.OIDC_ISSUER, clientId: 'gateway' });
    expect(config.graphql.introspection).toBe(false);
    expect(config.graphql.graphiql).toBe(false);
  });

  it("lets the sandbox's native app connect a bank on the embedded sandbox only, unless APP_RETURN_URIS says otherwise", () => {
    expect(loadConfig({}).appReturnUris).toEqual(['http://127.0.0.1/connected', 'nz.sandbox.native:/connected']);
    expect(loadConfig({ APP_RETURN_URIS: 'nz.example.app:/connected' }).appReturnUris).toEqual([
      'nz.example.app:/connected',
    ]);
    expect(loadConfig({ ...PRODUCTION_SETTINGS, CORE_API_URL: 'https://api.platform.example/' }).appReturnUris).toEqual(
      [],
    );
  });

  describe('Redis topologies', () => {
    const keys = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

    it('reads a single server, a Sentinel group and a Cluster from REDIS_URL and REDIS_MODE', () => {
      expect(
        loadConfig({ REDIS_URL: 'rediss://:pw@cache.internal:6380/2', TOKEN_ENCRYPTION_KEYS: keys }).redis!.connection,
      ).toMatchObject({
        mode: 'standalone',
        nodes: [{ host: 'cache.internal', port: 6380 }],
        password: 'pw',
        tls: true,
        db: 2,
      });
      expect(
        loadConfig({
          REDIS_MODE: 'sentinel',
          REDIS_URL: 'redis://s1,redis://s2:26380',
          REDIS_SENTINEL_MASTER: 'main',
          TOKEN_ENCRYPTION_KEYS: keys,
        }).redis!.connection,
      ).toMatchObject({
        mode: 'sentinel',
        nodes: [
          { host: 's1', port: 26379 },
          { host: 's2', port: 26380 },
        ],
        sentinelMaster: 'main',
      });
      expect(
        loadConfig({
          REDIS_MODE: 'cluster',
          REDIS_URL: 'redis://n1:7000, redis://n2:7001',
          TOKEN_ENCRYPTION_KEYS: keys,
        }).redis!.connection,
      ).toMatchObject({
        mode: 'cluster',
        nodes: [
          { host: 'n1', port: 7000 },
          { host: 'n2', port: 7001 },
        ],
      });
    });

    it('refuses settings that do not fit the topology, naming the key and never the password', () => {
      expect(issuesOf({ REDIS_URL: 'redis://a,redis://b', TOKEN_ENCRYPTION_KEYS: keys })).toEqual(['REDIS_URL']);
      expect(issuesOf({ REDIS_MODE: 'sentinel', REDIS_URL: 'redis://a', TOKEN_ENCRYPTION_KEYS: keys })).toEqual([
        'REDIS_SENTINEL_MASTER',
      ]);
      expect(issuesOf({ REDIS_MODE: 'cluster', REDIS_URL: 'redis://a/3', TOKEN_ENCRYPTION_KEYS: keys })).toEqual([
        'REDIS_URL',
      ]);
      expect(
        issuesOf({
          REDIS_MODE: 'cluster',
          REDIS_URL: 'redis://a',
          REDIS_SENTINEL_MASTER: 'main',
          TOKEN_ENCRYPTION_KEYS: keys,
        }),
      ).toEqual(['REDIS_SENTINEL_MASTER']);
      expect(issuesOf({ REDIS_MODE: 'ring', REDIS_URL: 'redis://a', TOKEN_ENCRYPTION_KEYS: keys })).toEqual([
        'REDIS_MODE',
      ]);
      expect(issuesOf({ REDIS_MODE: 'cluster' })).toEqual(['REDIS_MODE']);
      expect(() =>
        loadConfig({
          REDIS_MODE: 'cluster',
          REDIS_URL: 'redis://:hunter2-secret@a,redis://:other@b',
          TOKEN_ENCRYPTION_KEYS: keys,
        }),
      ).toThrow(/REDIS_URL entries must share/);
      expect(() =>
        loadConfig({ REDIS_URL: 'redis://:hunter2-secret@a,redis://b', TOKEN_ENCRYPTION_KEYS: keys }),
      ).not.toThrow(/hunter2/);
    });
  });
});
