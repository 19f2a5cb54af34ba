import { int, setting, type SettingGroup } from '../setting-types.js';

export const REALTIME_SETTINGS = {
  title: 'Webhooks and subscriptions',
  settings: [
    setting({
      name: 'WEBHOOK_BODY_TIMEOUT_MS',
      type: int(100, 4_500),
      default: 3_000,
      usedBy: '`POST /webhooks`',
      description: 'A webhook body must arrive within this (408); the platform waits 5 s for the answer.',
    }),
    setting({
      name: 'WEBHOOK_KEY_FETCHES_PER_MINUTE',
      type: int(1, 600),
      default: 10,
      usedBy: 'webhook signature keys',
      description:
        'Budget for fetching signing keys other than the current and next one (webhook key ids are sender input). Past it: 503 with `Retry-After`.',
    }),
    setting({
      name: 'EVENT_RETENTION_SECONDS',
      type: int(60, 30 * 86_400),
      default: 3 * 86_400,
      defaultNote: '(3 days)',
      boundsNote: ' (30 days)',
      usedBy: 'the event log, replay by cursor ([replay](../guides/webhooks-and-subscriptions.md#replay-by-cursor))',
      description:
        "How long each user's events are kept so a subscriber can resume with `after: <cursor>` (in memory also at most 1,000 per user and 50,000 in all, oldest dropped first). With the user-data store on Redis, at least twice `USER_DATA_MAX_AGE_SECONDS`: the store looks at the events appended since it last looked for an earlier version's acknowledgements, and one trimmed before it looked would start the user's kept data again.",
      envNote: 'events kept for subscribers resuming with a cursor (3 days)',
    }),
    setting({
      name: 'WS_HANDSHAKE_TIMEOUT_MS',
      formerly: 'WS_CONNECTION_INIT_TIMEOUT_MS',
      type: int(100, 60_000),
      default: 3_000,
      usedBy: 'GraphQL WebSockets',
      description:
        'The handshake: a socket that sends no `connection_init` (graphql-ws) within this is closed with 4408.',
    }),
    setting({
      name: 'WS_MAX_SUBSCRIPTIONS_PER_SOCKET',
      type: int(1, 10_000),
      default: 20,
      usedBy: 'GraphQL WebSockets',
      description: 'Operations one socket may hold; more are refused with `LIMIT_EXCEEDED` on that operation.',
    }),
    setting({
      name: 'WS_MAX_SOCKETS_PER_SESSION',
      type: int(1, 10_000),
      default: 8,
      usedBy: 'GraphQL WebSockets, subscriptions over HTTP',
      description:
        'Sockets and HTTP subscription streams (multipart, SSE) one session may hold open; more sockets close with 4429, more streams get 429 `LIMIT_EXCEEDED`.',
    }),
    setting({
      name: 'WS_MAX_SOCKETS_PER_USER',
      type: int(1, 100_000),
      default: 16,
      usedBy: 'GraphQL WebSockets, subscriptions over HTTP',
      description:
        "Sockets and HTTP subscription streams across a user's sessions on one instance; more sockets close with 4429, more streams get 429 `LIMIT_EXCEEDED`.",
    }),
    setting({
      name: 'WS_MAX_BUFFERED_BYTES',
      type: int(1_024, 1_073_741_824),
      default: 1_048_576,
      defaultNote: '(1 MiB)',
      usedBy: 'GraphQL WebSockets, subscriptions over HTTP',
      description:
        'A socket or HTTP subscription stream whose unsent data passes this (its client stopped reading) is cut.',
    }),
    setting({
      name: 'SANDBOX_WEBHOOK_TIME_SCALE',
      type: int(1, 3_600_000),
      default: 120,
      usedBy: 'the embedded sandbox only ([sandbox webhooks](../guides/sandbox.md#webhooks))',
      description:
        "Divides the sandbox's webhook retry interval (hourly on the platform), its 3-day retry horizon and its 2-day disable window, so a demo sees retries every 30 s. `1` is real time.",
    }),
  ],
} as const satisfies SettingGroup;
