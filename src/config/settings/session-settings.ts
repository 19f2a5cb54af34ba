import { int, list, oneOf, setting, text, url, type SettingGroup } from '../setting-types.js';
import { CREDENTIAL, DEFAULT_MFA_AMR, LONG_CREDENTIAL, parseAmrList } from './setting-forms.js';

export const SESSION_SETTINGS = {
  title: 'Sessions and sign-in',
  settings: [
    setting({
      name: 'SESSION_SECRET',
      type: text(LONG_CREDENTIAL),
      defaultText: 'random per process (sandbox only)',
      boundsNote: '; required once any real upstream URL is set',
      usedBy: 'session cookies',
      description: 'Key for signing session cookies. Changing it signs everyone out. Every instance needs the same.',
      secret: true,
      example: '...at least 32 random characters...',
    }),
    setting({
      name: 'SESSION_MAX_AGE_SECONDS',
      type: int(60, 30 * 86_400),
      default: 12 * 3600,
      defaultNote: '(12 h)',
      boundsNote: ' (30 days)',
      usedBy: 'sessions',
      description: 'Absolute session lifetime.',
    }),
    setting({
      name: 'SESSION_IDLE_TIMEOUT_SECONDS',
      type: int(60, 30 * 86_400),
      default: 2 * 3600,
      defaultNote: '(2 h)',
      boundsNote: ' (30 days)',
      usedBy: 'sessions',
      description: 'A session unused this long ends.',
    }),
    setting({
      name: 'OIDC_ISSUER',
      type: url(),
      defaultText: 'the embedded sandbox identity provider',
      bounds:
        'https (plain http only for localhost or a private service name); required once any real upstream URL is set',
      usedBy: 'app sign-in ([sign-in](../guides/sign-in-and-consumer-controls.md#app-sign-in))',
      description:
        "The app's identity provider, found by OpenID Connect discovery at `$OIDC_ISSUER/.well-known/openid-configuration`: Auth0, Entra ID, Keycloak, Cognito… The sandbox provider is for the sandbox only. Register `$PUBLIC_URL/auth/oidc/callback` as its redirect URI.",
      example: 'https://login.example.co.nz',
      envNote: "the app's identity provider; default: the embedded sandbox provider (sandbox only)",
    }),
    setting({
      name: 'OIDC_CLIENT_ID',
      type: text(),
      defaultText: "the sandbox's",
      bounds: 'required with `OIDC_ISSUER`',
      usedBy: 'app sign-in',
      description: "The gateway's client id at the provider.",
    }),
    setting({
      name: 'OIDC_CLIENT_SECRET',
      type: text(CREDENTIAL),
      defaultText: "the sandbox's",
      boundsNote: '; required with `OIDC_ISSUER`',
      usedBy: 'app sign-in',
      description: 'Its client secret (sent with HTTP Basic to the token endpoint).',
      secret: true,
    }),
    setting({
      name: 'OIDC_SCOPES',
      type: text({
        pattern: /^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/,
        problem: 'must be space-separated scope names',
      }),
      default: 'email profile',
      bounds: 'space-separated scope names',
      usedBy: 'app sign-in',
      description: 'Scopes asked for besides `openid`.',
    }),
    setting({
      name: 'MFA_POLICY',
      type: oneOf(['required', 'read-only']),
      default: 'required',
      usedBy:
        'the access gate, money movement ([MFA](../guides/sign-in-and-consumer-controls.md#multi-factor-authentication))',
      description:
        '`required`: every platform-connected field needs a sign-in with a second factor (else `MFA_REQUIRED`). `read-only`: the weaker sign-ins the rules allow for read-only apps may read, and every payment or transfer is refused (`FORBIDDEN`, `reason: "READ_ONLY_APP"`).',
      envNote: 'read-only: weaker sign-ins may read, nobody moves money',
    }),
    setting({
      name: 'MFA_ACCEPTED_AMR',
      type: list('comma-separated `amr` values (RFC 8176); `pwd` and `pin` alone are refused', parseAmrList),
      default: DEFAULT_MFA_AMR,
      usedBy: 'the access gate',
      description: 'The ID token `amr` values that count as a second factor.',
    }),
    setting({
      name: 'MFA_MAX_AGE_SECONDS',
      type: int(60, 7_200),
      default: 7_200,
      defaultNote: '(2 h)',
      boundsNote: " (the rules' maximum)",
      usedBy: 'money movement ([step-up](../guides/sign-in-and-consumer-controls.md#step-up-before-moving-money))',
      description:
        "MFA status lapses this long after the sign-in's `auth_time`; payments and transfers then answer `STEP_UP_REQUIRED`.",
      envNote: 'at most 2 h; payments then need /auth/step-up',
    }),
    setting({
      name: 'BANK_CONNECTION_IDLE_DAYS',
      formerly: 'CONNECTION_IDLE_DAYS',
      type: int(1, 3_650),
      default: 180,
      boundsNote: '; at least `SESSION_MAX_AGE_SECONDS`',
      usedBy: 'bank connections',
      description:
        'A bank connection whose app user has not signed in for this long is no longer needed: its token is revoked (`DELETE /v1/token`, retried) and what the gateway holds for the user is deleted. Each sign-in moves the deadline.',
      envNote: 'a bank connection unused (no sign-in) this long is revoked',
    }),
  ],
} as const satisfies SettingGroup;
