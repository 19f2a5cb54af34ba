import { int, list, oneOf, setting, text, type SettingGroup } from '../setting-types.js';
import { parseTokenKeys } from './setting-forms.js';

export const SHARED_STATE_SETTINGS = {
  title: 'Shared state (Redis)',
  settings: [
    setting({
      name: 'REDIS_URL',
      type: text(),
      defaultText: 'none: state in memory, one instance',
      bounds:
        '`redis://` or `rediss://` URL (`redis://[user:password@]host:port[/db]`); with `REDIS_MODE` `sentinel` or `cluster`, a comma-separated list with the same scheme and credentials',
      usedBy: 'every store ([several instances](../operations/several-instances.md))',
      description:
        'The Redis that holds sessions, bank connections, OAuth state, the delivery ledger, routing handles, dead letters and events for every instance. With `sentinel`, the list is the sentinels; with `cluster`, seed nodes; the credentials are those of the data nodes.',
      secret: true,
      example: 'redis://127.0.0.1:6379',
      envNote: 'unset: in-memory, single instance; a comma-separated list for sentinel/cluster',
    }),
    setting({
      name: 'REDIS_MODE',
      type: oneOf(['standalone', 'sentinel', 'cluster']),
      default: 'standalone',
      usedBy: 'every store ([Redis topologies](../operations/redis-topologies.md))',
      description:
        '`standalone`: one server, or a managed failover behind one address. The stores run the same commands on all three.',
      envNote: 'standalone | sentinel | cluster',
    }),
    setting({
      name: 'REDIS_SENTINEL_MASTER',
      type: text(),
      bounds: 'required with `REDIS_MODE=sentinel`, refused otherwise',
      usedBy: 'Sentinel connections',
      description: 'The name the sentinels monitor the primary under.',
      envNote: 'required with REDIS_MODE=sentinel',
    }),
    setting({
      name: 'REDIS_SENTINEL_PASSWORD',
      type: text(),
      bounds: 'only with `REDIS_MODE=sentinel`',
      usedBy: 'Sentinel connections',
      description: "The sentinels' own password, if they have one (`REDIS_URL`'s password is the data nodes').",
      secret: true,
      envNote: "the sentinels' own password, if any",
    }),
    setting({
      name: 'REDIS_KEY_PREFIX',
      type: text({
        pattern: /^[A-Za-z0-9_.-]{1,32}:$/,
        problem: 'must be 1-32 letters, digits, _ . - followed by a colon (ofg:)',
      }),
      default: 'ofg:',
      bounds: '1 to 32 letters, digits, `_ . -`, followed by a colon',
      usedBy: 'every store',
      description: 'Prefix of every key and channel (several gateways can share one Redis).',
    }),
    setting({
      name: 'REDIS_COMMAND_TIMEOUT_MS',
      type: int(50, 60_000),
      default: 1_000,
      usedBy: 'every store, `/readyz`',
      description:
        'Longest wait for one Redis command; past it the request gets `SERVICE_UNAVAILABLE` (503) and `/readyz` answers 503 `redis: slow`.',
    }),
    setting({
      name: 'REDIS_WAIT_REPLICAS',
      type: int(0, 5),
      defaultText: '`1` with `REDIS_MODE=sentinel` or `cluster`, else `0`',
      usedBy: 'the webhook receiver (the event log and dead letters) and webhook subscriptions (routing handles)',
      description:
        'How many replicas must hold a webhook\u2019s event before it is answered 200 (Redis `WAIT`, bounded by half of `REDIS_COMMAND_TIMEOUT_MS`; too few in time answers 503 and the platform retries). A failover promotes a replica: without this, an event the old primary stored but had not copied yet is lost after its 200. A user\u2019s routing handle is handed out under the same rule when they connect a bank. `0` does not wait; only with `REDIS_URL`.',
    }),
    setting({
      name: 'TOKEN_ENCRYPTION_KEYS',
      type: list(
        '`id:base64` entries, comma-separated, each a 32-byte key, ids unique; required with `REDIS_URL`',
        parseTokenKeys,
      ),
      default: [],
      defaultText: 'none',
      usedBy: 'sessions and bank connections on Redis',
      description:
        'Platform tokens are stored AES-256-GCM encrypted; the first key encrypts, all decrypt, so keys rotate without signing anyone out. Make one with `openssl rand -base64 32`.',
      secret: true,
      example: 'k1:...base64 of 32 random bytes...',
      envNote: 'required with REDIS_URL; first encrypts, all decrypt',
    }),
  ],
} as const satisfies SettingGroup;
