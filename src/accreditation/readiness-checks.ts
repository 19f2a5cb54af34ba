import { DEFAULT_APP_NAME, type GatewayConfig } from '../config/config.js';

export type Verdict = 'pass' | 'warn' | 'fail';

export interface ReadinessCheck {
  id: string;
  /** The accreditation rule, in its own words (abridged). */
  requirement: string;
  verdict: Verdict;
  detail: string;
  /** The setting (or work) that fixes a warn or fail. */
  fix?: string;
}

/** What the report needs besides the configuration: the time, and whether this build carries the secret-leak audit. */
export interface ReadinessFacts {
  now: number;
  leakAuditPresent: boolean;
}

const YEAR_MS = 365 * 86_400_000;
const PLATFORM_RETRY_HORIZON_MS = 3 * 86_400_000;

/**
 * The running configuration against each requirement of the platform's rules for accredited apps.
 * `fail` is what an accreditation would refuse, whatever the upstream: a CI gate runs the report on
 * the configuration it ships, so the embedded sandbox's development defaults (plain http, state in
 * memory, the sandbox's identity provider, no privacy notice or penetration test) fail rather than
 * warn. `warn` is left for what an accredited app may choose (a personal app, a read-only MFA
 * policy) or what the configuration cannot show (the audit run in CI). Requirements this gateway
 * cannot meet yet say so, rather than pass.
 */
export function readinessReport(config: GatewayConfig, facts: ReadinessFacts): ReadinessCheck[] {
  return CHECKS.map((check) => check(config, facts));
}

function encryptedTraffic(config: GatewayConfig): ReadinessCheck {
  const https = config.publicUrl?.startsWith('https:') ?? false;
  return {
    id: 'encrypted-traffic',
    requirement: 'All traffic with the app\u2019s users is encrypted in transit.',
    verdict: https ? 'pass' : 'fail',
    detail: https
      ? `PUBLIC_URL is https; every response carries Strict-Transport-Security.`
      : `PUBLIC_URL is ${config.publicUrl ?? 'unset (http://localhost)'}: not https.`,
    fix: https ? undefined : 'PUBLIC_URL=https://… behind a TLS-terminating proxy',
  };
}

function tokensServerSide(): ReadinessCheck {
  return {
    id: 'tokens-server-side',
    requirement: 'User access tokens are never exposed to the user\u2019s device.',
    verdict: 'pass',
    detail:
      'Tokens stay in the gateway\u2019s stores (the app user\u2019s connection, their sessions); the browser holds an opaque, signed, HttpOnly session cookie.',
  };
}

function tokensAtRest(config: GatewayConfig): ReadinessCheck {
  return {
    id: 'tokens-at-rest',
    requirement: 'Secrets and tokens are protected at rest.',
    verdict: 'pass',
    detail: config.redis
      ? `Tokens on Redis are AES-256-GCM encrypted (${config.redis.tokenKeys.length} key(s) in TOKEN_ENCRYPTION_KEYS).`
      : 'State is in process memory: tokens are never written anywhere (see durable-state).',
  };
}

function durableState(config: GatewayConfig): ReadinessCheck {
  // Refused in memory: a crash loses the connections while the platform goes on honouring their
  // tokens, so users can neither see nor revoke access they granted (a graceful stop revokes them,
  // a crash cannot), and one process is a single point of failure.
  return {
    id: 'durable-state',
    requirement: 'Users can see and revoke every access they granted, whatever happens to the service.',
    verdict: config.redis ? 'pass' : 'fail',
    detail: config.redis
      ? 'Connections, sessions and events are on Redis: they survive restarts and crashes, across instances.'
      : 'State is in process memory: a crash leaves platform tokens live that no user can see or revoke, and only one instance can run.',
    fix: config.redis ? undefined : 'REDIS_URL and TOKEN_ENCRYPTION_KEYS',
  };
}

function secretLeakAudit(_config: GatewayConfig, facts: ReadinessFacts): ReadinessCheck {
  return {
    id: 'secret-leak-audit',
    requirement: 'Secrets do not leak into logs, errors or responses.',
    verdict: facts.leakAuditPresent ? 'pass' : 'warn',
    detail: facts.leakAuditPresent
      ? 'The secret-leak audit (test/audit) is part of this build\u2019s test run.'
      : 'The secret-leak audit is not in this build (a container image carries no tests): make sure CI runs it.',
    fix: facts.leakAuditPresent ? undefined : 'run `npm test` (which ends with the audit) in CI for this commit',
  };
}

function oauthState(): ReadinessCheck {
  return {
    id: 'oauth-state',
    requirement: 'The OAuth flow uses `state` to prevent cross-site request forgery.',
    verdict: 'pass',
    detail: 'Always: 256 random bits, single use, 10 minutes, bound to the browser that started sign-in.',
  };
}

function multiFactor(config: GatewayConfig): ReadinessCheck {
  const issuer = config.identity.issuer;
  const readOnly = config.mfa.policy === 'read-only';
  return {
    id: 'multi-factor',
    requirement: 'Users of platform-connected functionality sign in with server-validated multi-factor authentication.',
    verdict: !issuer ? 'fail' : readOnly ? 'warn' : 'pass',
    detail: !issuer
      ? 'App users sign in at the embedded sandbox identity provider: for the sandbox only.'
      : readOnly
        ? `Sign-in through ${issuer}; MFA_POLICY=read-only lets sign-ins without a second factor read (allowed only for read-only apps) and refuses every payment.`
        : `Sign-in through ${issuer}; every platform-connected field needs a second factor (amr: ${config.mfa.acceptedAmr.join(', ')}), else MFA_REQUIRED.`,
    fix: !issuer
      ? 'OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET of the app’s identity provider, with MFA enforced there'
      : readOnly
        ? 'MFA_POLICY=required unless the app is read-only'
        : undefined,
  };
}

function mfaExpiry(config: GatewayConfig): ReadinessCheck {
  const maxAgeHours = config.mfa.maxAgeMs / 3_600_000;
  return {
    id: 'mfa-expiry',
    requirement: 'A web session’s MFA status expires after 2 hours and is renewed before any payment.',
    verdict: config.mfa.maxAgeMs <= 2 * 3_600_000 ? 'pass' : 'fail',
    detail: `MFA status lapses ${maxAgeHours} h after the sign-in's auth_time (MFA_MAX_AGE_SECONDS); payments and transfers then answer STEP_UP_REQUIRED with /auth/step-up (max_age=0).`,
  };
}

function consumerControls(config: GatewayConfig): ReadinessCheck {
  const webhooks = config.appKind === 'FULL';
  return {
    id: 'consumer-controls',
    requirement:
      'Users see every connected account whatever its status, revoke one or all, delete their account, and hear of revoked access and inactive accounts.',
    verdict: webhooks ? 'pass' : 'warn',
    detail: webhooks
      ? 'accounts lists every status; revokeAccount, revokeAllAccess, deleteMyAccount (webhooks removed, every token revoked, everything deleted); TOKEN DELETE → accessRevoked; INACTIVE → accountEvents.becameInactive.'
      : 'APP_KIND=PERSONAL subscribes no webhooks: revoked access and inactive accounts are noticed only on the next call.',
    fix: webhooks ? undefined : 'APP_KIND=FULL',
  };
}

function dataRetention(config: GatewayConfig): ReadinessCheck {
  const retention = [
    `events ${config.eventRetentionMs / 3_600_000} h`,
    `enrichment cache ${config.enrichment.cacheTtlMs / 3_600_000} h (no user data)`,
    `payment dedupe ${config.payments.dedupeWindowMs / 60_000} min`,
    `sessions ${config.session.maxAgeMs / 3_600_000} h`,
    `bank connections ${config.bankConnectionIdleMs / 86_400_000} days without a sign-in`,
    config.userData.store === 'off'
      ? 'accounts and transactions not kept (USER_DATA_STORE=off)'
      : `kept accounts and transactions reconciled after ${config.userData.maxAgeMs / 60_000} min, deleted ${config.userData.retentionMs / 60_000} min after their last change`,
  ];
  // Events are needed for the platform's retry horizon, and on Redis as long as a user's kept data
  // lives (a settings rule): longer than both is longer than needed.
  const needed = Math.max(
    PLATFORM_RETRY_HORIZON_MS,
    config.userData.store === 'redis' ? config.userData.retentionMs : 0,
  );
  const longEvents = config.eventRetentionMs > needed;
  return {
    id: 'data-retention',
    requirement: 'Data is deleted when no longer needed.',
    verdict: longEvents ? 'warn' : 'pass',
    detail: `Kept: ${retention.join(', ')}; everything of a user is deleted when access ends.${
      longEvents ? ` Events are kept longer than needed (${needed / 3_600_000} h).` : ''
    }`,
    fix: longEvents ? `EVENT_RETENTION_SECONDS=${needed / 1000} or less` : undefined,
  };
}

function privacyNotice(config: GatewayConfig): ReadinessCheck {
  const privacy = config.compliance.privacyNoticeUrl;
  return {
    id: 'privacy-notice',
    requirement: 'The app has a privacy notice, linked where users consent.',
    verdict: privacy ? 'pass' : 'fail',
    detail: privacy ? `PRIVACY_NOTICE_URL is ${privacy}.` : 'PRIVACY_NOTICE_URL is not set.',
    fix: privacy ? undefined : 'PRIVACY_NOTICE_URL=https://…',
  };
}

function consumerInformation(config: GatewayConfig): ReadinessCheck {
  const live = config.core.baseUrl !== undefined || config.enrichment.baseUrl !== undefined;
  const named = config.consumerInfo.appName !== DEFAULT_APP_NAME;
  return {
    id: 'consumer-information',
    requirement:
      'Before connecting, users see what access gives them, its scope and duration, and the relationship with the platform.',
    verdict: named ? 'pass' : live ? 'warn' : 'pass',
    detail: `Shown before every connection (/auth/login): ${
      config.consumerInfo.templatePath ? `the template ${config.consumerInfo.templatePath}` : 'the default text'
    }, for "${config.consumerInfo.appName}" and ${config.consumerInfo.platformName}.`,
    fix: named || !live ? undefined : 'APP_NAME (and CONSUMER_INFO_TEMPLATE for your own text)',
  };
}

function penetrationTest(config: GatewayConfig, facts: ReadinessFacts): ReadinessCheck {
  const pentest = config.compliance.pentestDate;
  const pentestAge = pentest === undefined ? undefined : facts.now - pentest.getTime();
  return {
    id: 'penetration-test',
    requirement: 'An independent penetration test within the last 12 months.',
    verdict: pentestAge !== undefined && pentestAge <= YEAR_MS ? 'pass' : 'fail',
    detail:
      pentest === undefined
        ? 'PENTEST_DATE is not set.'
        : `Last penetration test ${pentest.toISOString().slice(0, 10)}${pentestAge! > YEAR_MS ? ': more than 12 months ago' : ''}.`,
    fix: pentestAge !== undefined && pentestAge <= YEAR_MS ? undefined : 'PENTEST_DATE=YYYY-MM-DD of the last test',
  };
}

function trustedDocuments(config: GatewayConfig): ReadinessCheck {
  // Not a rule of the platform's: a backend-for-frontend serves one known app, so running only that
  // app's operations shuts out every document an attacker could write against the schema.
  const trusted = config.trustedDocuments;
  return {
    id: 'trusted-documents',
    requirement: 'The gateway runs only its own app\u2019s operations.',
    verdict: trusted ? 'pass' : 'warn',
    detail: trusted
      ? `TRUSTED_DOCUMENTS=${trusted.path}: only the manifest's operations run, by id; GraphiQL is ${trusted.graphiql ? 'kept on (GRAPHIQL_WITH_TRUSTED_DOCUMENTS)' : 'off'}.`
      : 'Any valid operation a client writes runs (within the depth, cost and alias limits).',
    fix: trusted ? undefined : "TRUSTED_DOCUMENTS=<path to the app's persisted-documents.json>",
  };
}

function nativeClients(config: GatewayConfig): ReadinessCheck {
  const requirement =
    'Native apps sign in as public clients with PKCE, through the system browser, returning only to the app (RFC 8252).';
  const ids = config.accessTokens.clientIds ?? [];
  if (ids.length === 0)
    return {
      id: 'native-clients',
      requirement,
      verdict: 'pass',
      detail:
        config.identity.issuer === undefined
          ? "The embedded provider's native client only: public (no secret), PKCE with S256 required, returning to its custom scheme or loopback."
          : 'NATIVE_CLIENT_IDS is unset: no access tokens are accepted; every client uses the session cookie.',
    };
  const audience = config.accessTokens.audience ?? config.publicUrl ?? '';
  if (!audience.startsWith('https:'))
    return {
      id: 'native-clients',
      requirement,
      verdict: 'fail',
      detail: `Access tokens are accepted for ${audience || 'the local URL'}, which is not https.`,
      fix: 'ACCESS_TOKEN_AUDIENCE (or PUBLIC_URL) = https://…',
    };
  // The provider's client registrations are not public: the configuration cannot show them.
  return {
    id: 'native-clients',
    requirement,
    verdict: 'warn',
    detail: `Access tokens of ${ids.join(', ')} are accepted for ${audience}. The provider's registration of each cannot be read from here.`,
    fix: 'at the identity provider, confirm each of NATIVE_CLIENT_IDS is a public client (no secret), requires PKCE with S256, and returns only to a claimed https link, a reverse-domain custom scheme or loopback',
  };
}

/** The checks, in the report's order: one per requirement. */
const CHECKS: Array<(config: GatewayConfig, facts: ReadinessFacts) => ReadinessCheck> = [
  encryptedTraffic,
  tokensServerSide,
  tokensAtRest,
  durableState,
  secretLeakAudit,
  oauthState,
  multiFactor,
  mfaExpiry,
  consumerControls,
  dataRetention,
  privacyNotice,
  consumerInformation,
  penetrationTest,
  trustedDocuments,
  nativeClients,
];

/** The report as text: one line per check, then what to fix. */
export function formatReadinessReport(checks: ReadinessCheck[]): string {
  const mark: Record<Verdict, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' };
  const lines = checks.map(
    (check) => `${mark[check.verdict]}  ${check.id}: ${check.requirement}\n      ${check.detail}`,
  );
  const fixes = checks.filter((check) => check.fix).map((check) => `  ${check.id}: ${check.fix}`);
  const failed = checks.filter((check) => check.verdict === 'fail').length;
  const warned = checks.filter((check) => check.verdict === 'warn').length;
  return [
    'Accreditation readiness',
    ...lines,
    '',
    `${checks.length - failed - warned} pass, ${warned} warn, ${failed} fail`,
    ...(fixes.length > 0 ? ['To fix:', ...fixes] : []),
    '',
  ].join('\n');
}
