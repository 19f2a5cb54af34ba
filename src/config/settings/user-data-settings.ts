import { int, oneOf, setting, type SettingGroup } from '../setting-types.js';

export const USER_DATA_SETTINGS = {
  title: 'Kept user data',
  settings: [
    setting({
      name: 'USER_DATA_STORE',
      type: oneOf(['memory', 'redis', 'off']),
      defaultText: '`redis` with `REDIS_URL`, else `memory`; `off` for a personal app',
      bounds: '`memory` (one instance, no `REDIS_URL`), `redis` (needs `REDIS_URL`) or `off`',
      usedBy:
        '`me`, `accounts`, `account`, `transactions`, `transactionsSync` ([kept user data](../guides/kept-user-data.md))',
      description:
        'Where each user\u2019s accounts and settled transactions are kept between reads, changed by the platform\u2019s signed webhooks and reconciled with the platform after `USER_DATA_MAX_AGE_SECONDS`. `off`: every read goes to the platform, and `transactionsSync` is refused. Memory is refused with `REDIS_URL`: a webhook reaches one instance, and the others\u2019 copies would not hear of it. A personal app (no webhooks) must leave it `off`.',
      envNote: 'memory | redis | off; follows REDIS_URL when unset',
    }),
    setting({
      name: 'USER_DATA_MAX_AGE_SECONDS',
      type: int(10, 7 * 86_400),
      default: 86_400,
      boundsNote: ' (7 days)',
      usedBy: 'the user-data store',
      description:
        'How old kept data may be before a read reconciles it with the platform (reads it again, applies and publishes the differences). The platform does not guarantee webhook delivery: this bounds how long a change whose webhook never arrived can go unseen. Each reconciliation costs about a first open (three calls); a day costs 1.2 times the fewest calls possible, an hour 2.3 times ([performance](../performance.md#kept-user-data-npm-run-benchuser-data)). A user\u2019s kept data is deleted twice this long after its last change.',
    }),
    setting({
      name: 'USER_DATA_USER_MAX_KB',
      type: int(16, 65_536),
      default: 1024,
      usedBy: 'the user-data store',
      description:
        'Most one user\u2019s kept answers may take (KiB, as stored). A new answer that would pass it replaces that user\u2019s others; one larger than it is not kept.',
    }),
    setting({
      name: 'USER_DATA_BUDGET_MB',
      type: int(1, 65_536),
      default: 256,
      usedBy: 'the user-data store',
      description:
        'Most all users\u2019 kept answers may take together (MiB, in process memory or on Redis). Past it, the least recently written users are dropped whole and read from the platform again.',
    }),
  ],
} as const satisfies SettingGroup;
