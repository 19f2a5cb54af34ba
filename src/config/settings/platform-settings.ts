import { int, oneOf, setting, text, url, type SettingGroup } from '../setting-types.js';
import { CREDENTIAL, ENRICHMENT_KEY_FORM } from './setting-forms.js';

export const PLATFORM_SETTINGS = {
  title: 'Platform',
  settings: [
    setting({
      name: 'CORE_API_URL',
      type: url(),
      defaultText: 'the embedded sandbox',
      usedBy: 'every core API call',
      description:
        "The platform's `{base_url}`: the gateway calls `$CORE_API_URL/v1/...`. Setting it (or `ENRICHMENT_API_URL`) makes the app credentials, `SESSION_SECRET` and `OIDC_ISSUER` required.",
      example: 'https://api.akahu.io',
    }),
    setting({
      name: 'ENRICHMENT_API_URL',
      type: url(),
      defaultText: 'the embedded sandbox',
      usedBy: 'enrichment ([enrichment and batching](../guides/enrichment-and-batching.md))',
      description:
        "The platform's `{enrichment_url}`: the gateway calls `$ENRICHMENT_API_URL/v1/search`. Either upstream can stay on the sandbox while the other is live.",
      example: 'https://api.genie.akahu.io',
    }),
    setting({
      name: 'APP_TOKEN',
      type: text(CREDENTIAL),
      defaultText: "the sandbox's",
      boundsNote: '; required with `CORE_API_URL`',
      usedBy: 'core API calls, the bank connection, webhook keys',
      description: 'The app id token: sent in the app id header and as the OAuth `client_id`.',
      secret: true,
      example: 'app_token_...',
    }),
    setting({
      name: 'APP_SECRET',
      type: text(CREDENTIAL),
      defaultText: "the sandbox's",
      boundsNote: '; required with `CORE_API_URL`',
      usedBy: 'the token exchange, webhook key fetches',
      description: 'The app secret: sent only in the token exchange body and as app auth for `GET /v1/keys/{id}`.',
      secret: true,
      example: '...',
    }),
    setting({
      name: 'OAUTH_AUTHORIZE_URL',
      type: url(),
      defaultText: "the sandbox's consent page",
      boundsNote: '; required with `CORE_API_URL`',
      usedBy: 'connecting the bank ([sign-in](../guides/sign-in-and-consumer-controls.md#connecting-the-bank))',
      description: "Where `/auth/connect` sends the browser for the platform's consent.",
      example: 'https://oauth.akahu.nz',
    }),
    setting({
      name: 'ENRICHMENT_API_KEY',
      type: text({
        pattern: ENRICHMENT_KEY_FORM,
        shape: "the platform's key prefix ending in token_ (e.g. genie_token_…)",
      }),
      defaultText: "the sandbox's",
      bounds:
        "the platform's key format, a prefix ending in `token_` (`genie_token_…`); required with `ENRICHMENT_API_URL`",
      usedBy: 'enrichment',
      description: 'Sent only to the enrichment API, as `Authorization: Bearer`.',
      secret: true,
      example: 'genie_token_...',
    }),
    setting({
      name: 'PLATFORM_HEADER_PREFIX',
      type: text({ pattern: /^X-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/, problem: 'must look like X-Service or X-Akahu' }),
      default: 'X-Service',
      bounds: 'a header prefix like `X-Service` or `X-Akahu`',
      usedBy: 'core API calls, webhook signature headers',
      description:
        'Header names `<prefix>-Id`, `<prefix>-Signature`, `<prefix>-Signing-Key`. `X-Akahu` for the live platform.',
      example: 'X-Akahu',
    }),
    setting({
      name: 'APP_KIND',
      type: oneOf(['FULL', 'PERSONAL']),
      default: 'FULL',
      usedBy: 'webhooks, name verification, consumer controls',
      description:
        'Personal apps cannot use name verification (refused with `FORBIDDEN`) and get no webhooks (no `/webhooks` route, no subscriptions at the platform).',
      envNote: 'or PERSONAL',
    }),
    setting({
      name: 'CORE_TIMEOUT_MS',
      type: int(100, 120_000),
      default: 10_000,
      usedBy: 'every core API call',
      description:
        'Deadline for one core API call (`UPSTREAM_TIMEOUT` past it). Retries of idempotent reads happen only within the same deadline.',
    }),
    setting({
      name: 'UPSTREAM_MAX_TCP_CONNECTIONS',
      formerly: 'UPSTREAM_MAX_CONNECTIONS',
      type: int(1, 1024),
      default: 32,
      usedBy: 'the upstream HTTP pools',
      description: 'TCP connections open to each upstream origin at most (the undici pool per origin).',
    }),
    setting({
      name: 'UPSTREAM_MAX_IN_FLIGHT_PER_USER',
      type: int(1, 1_024),
      default: 8,
      usedBy: 'every core API call made for a user',
      description:
        "Platform calls one user may have in flight; up to 8× more wait for the user's own slots, beyond that `RATE_LIMITED`.",
    }),
    setting({
      name: 'CIRCUIT_BREAKER_FAILURES',
      type: int(1, 1_000),
      default: 5,
      usedBy: 'the circuit breakers of upstream calls',
      description:
        'Consecutive upstream faults (5xx, timeouts, connection errors; never 401/403/404/429) that open the circuit of an upstream and operation group.',
    }),
    setting({
      name: 'CIRCUIT_BREAKER_HALF_OPEN_AFTER_MS',
      type: int(10, 600_000),
      default: 10_000,
      usedBy: 'the circuit breakers of upstream calls',
      description: 'An open circuit fails fast (`UPSTREAM_UNAVAILABLE`) this long, then lets one probe call through.',
    }),
  ],
} as const satisfies SettingGroup;
