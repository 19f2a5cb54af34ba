import { bool, int, list, oneOf, setting, text, url, type SettingGroup } from '../setting-types.js';
import { parseOrigins } from './setting-forms.js';

export const SERVER_SETTINGS = {
  title: 'Server',
  settings: [
    setting({
      name: 'PORT',
      type: int(0, 65_535),
      default: 4000,
      boundsNote: ' (`0`: any free port)',
      usedBy: 'the HTTP listener ([routes](routes.md))',
      description: 'The HTTP port. GraphQL WebSockets share it.',
    }),
    setting({
      name: 'HOST',
      type: text(),
      defaultText: 'all interfaces',
      bounds: 'a listen address',
      usedBy: 'the HTTP listener',
      description: 'The address to listen on.',
      example: '0.0.0.0',
    }),
    setting({
      name: 'PUBLIC_URL',
      type: url({ originOnly: true }),
      defaultText: '`http://localhost:$PORT`',
      bounds: 'an origin (scheme, host and port) without a path',
      usedBy: 'sign-in and connection redirects, cookies, CORS and origin checks',
      description:
        "The gateway's external origin, used for the OAuth redirect URIs (`$PUBLIC_URL/auth/oidc/callback`, `$PUBLIC_URL/auth/callback`). When it is `https`, cookies are `Secure` and `__Host-` prefixed and every response carries `Strict-Transport-Security`. Without it, a sign-in started at another host (such as `127.0.0.1`) is first redirected to `http://localhost:$PORT`.",
      example: 'https://gateway.example.nz',
      envNote: 'external origin; builds the OAuth redirect_uri',
    }),
    setting({
      name: 'ALLOWED_ORIGINS',
      type: list('comma-separated exact origins (`http://localhost:5173`)', parseOrigins),
      default: [],
      defaultText: 'none',
      usedBy:
        'CORS, WebSocket upgrades, cross-site request refusal ([frontend clients](../guides/frontend-clients.md))',
      description:
        "Extra origins allowed to call `/graphql` and `/auth/*` with CORS (credentials allowed, preflight cached 10 minutes), to open GraphQL WebSockets and to send state-changing requests: browser apps on another origin. The public URL's origin is always allowed.",
      envNote: 'extra browser origins (comma-separated) for sockets and state-changing requests',
    }),
    setting({
      name: 'HTTP_MAX_TCP_CONNECTIONS',
      formerly: 'MAX_CONNECTIONS',
      type: int(1, 1_000_000),
      default: 4_096,
      usedBy: 'the HTTP listener ([limits against abuse](../operations/security.md#limits-against-abuse))',
      description: 'Concurrent TCP connections, WebSockets included; more are dropped at accept.',
    }),
    setting({
      name: 'HTTP_HEADERS_TIMEOUT_MS',
      type: int(500, 120_000),
      default: 10_000,
      boundsNote: '; at most `HTTP_REQUEST_TIMEOUT_MS`',
      usedBy: 'the HTTP listener (slow clients)',
      description: "A request's headers must all arrive within this (408, connection closed).",
    }),
    setting({
      name: 'HTTP_REQUEST_TIMEOUT_MS',
      type: int(1_000, 600_000),
      default: 30_000,
      usedBy: 'the HTTP listener (slow clients)',
      description: 'A whole request (headers and body) must arrive within this.',
    }),
    setting({
      name: 'SHUTDOWN_DELAY_MS',
      type: int(0, 120_000),
      default: 5_000,
      usedBy: 'shutdown on SIGTERM ([readiness and shutdown](../operations/readiness-and-shutdown.md))',
      description:
        'After SIGTERM, `/readyz` fails and the gateway keeps serving this long so the load balancer stops sending traffic, before sockets and the listener close. SIGINT skips it.',
      envNote: 'after SIGTERM, readiness fails this long before the listener closes',
    }),
    setting({
      name: 'SHUTDOWN_GRACE_MS',
      type: int(0, 600_000),
      default: 10_000,
      usedBy: 'shutdown ([readiness and shutdown](../operations/readiness-and-shutdown.md))',
      description:
        'In-flight requests get this long to finish once the listener closed; then connections are cut. Without Redis, the revocation of in-memory bank connections happens within it too.',
      envNote: 'in-flight requests get this long to finish',
    }),
    setting({
      name: 'LOG_LEVEL',
      type: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
      default: 'info',
      usedBy: 'logging ([metrics and traces](../operations/metrics-and-traces.md#logs-and-request-ids))',
      description: 'Logs are JSON lines on stdout.',
    }),
    setting({
      name: 'REQUEST_ID_HEADER_TRUSTED',
      type: bool(),
      default: false,
      usedBy: 'request ids in logs, responses and upstream calls',
      description:
        "Take each request's id from its `x-request-id` header (set by a proxy in front; 8 to 128 characters of `A-Z a-z 0-9 . _ : -`) instead of generating one. The id is on every log line written while serving the request, in the response's `x-request-id`, and sent upstream as `x-request-id`.",
      envNote: 'true behind a proxy that sets x-request-id',
    }),
    setting({
      name: 'IPC_EVENTS',
      type: bool(),
      default: false,
      usedBy: 'test harnesses and supervisors',
      description:
        "Send the gateway's events (listening, subscription started, webhook published, webhooks registered, user data deleted, Redis client lost or restored, socket cut) to the parent process over Node's IPC channel, for a harness that starts `node dist/main.js` with one (`stdio: [..., 'ipc']`). The same events an embedder gets from `app.events`. They queue in the gateway while the parent is slow, so leave it off in production.",
      envNote: "test harnesses: the gateway's events to the parent over Node IPC",
    }),
  ],
} as const satisfies SettingGroup;
