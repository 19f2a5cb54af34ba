import { int, setting, text, url, type SettingGroup } from '../setting-types.js';
import { LONG_CREDENTIAL } from './setting-forms.js';

export const OBSERVABILITY_SETTINGS = {
  title: 'Observability and operator access',
  settings: [
    setting({
      name: 'METRICS_PORT',
      type: int(0, 65_535),
      usedBy: '`GET /metrics` ([metrics](../operations/metrics-and-traces.md#metrics))',
      description:
        'Serve `GET /metrics` (Prometheus text) without a token on a listener of its own, at `METRICS_HOST`, for a scraper on the private network. Unset: `/metrics` only on the main port, behind `ADMIN_TOKEN`.',
      example: '9464',
      envNote: '/metrics without a token on its own port; unset: main port behind ADMIN_TOKEN',
    }),
    setting({
      name: 'METRICS_HOST',
      type: text(),
      default: '127.0.0.1',
      bounds: 'a listen address',
      usedBy: 'the `METRICS_PORT` listener',
      description:
        "The address of the `METRICS_PORT` listener. Loopback by default, so metrics are not exposed by setting the port alone; set the private network's address (or `0.0.0.0` in a container) for a scraper elsewhere.",
      envNote: 'address the METRICS_PORT listener binds (0.0.0.0 for a scraper on another host)',
    }),
    setting({
      name: 'ADMIN_TOKEN',
      type: text(LONG_CREDENTIAL),
      defaultText: 'none: operator routes off',
      usedBy: '`GET /admin/webhooks/dead-letters`, `GET /metrics` on the main port',
      description: 'Bearer token for the operator routes.',
      secret: true,
      example: '...at least 32 random characters...',
      envNote: 'enables GET /admin/webhooks/dead-letters',
    }),
    setting({
      name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      type: url(),
      defaultText: 'none: tracing off',
      usedBy: 'tracing ([traces](../operations/metrics-and-traces.md#traces))',
      description: "An OTLP/HTTP collector's base URL (`http://collector:4318`): traces go to `/v1/traces`.",
      example: 'http://127.0.0.1:4318',
      envNote: 'traces to an OTLP/HTTP collector; unset: off',
    }),
    setting({
      name: 'OTEL_SERVICE_NAME',
      type: text({ pattern: /^[A-Za-z0-9._-]{1,64}$/, problem: 'must be 1-64 letters, digits, . _ -' }),
      default: 'open-finance-gateway',
      bounds: '1 to 64 letters, digits, `. _ -`',
      usedBy: 'tracing',
      description: "The `service.name` of the gateway's spans.",
    }),
  ],
} as const satisfies SettingGroup;
