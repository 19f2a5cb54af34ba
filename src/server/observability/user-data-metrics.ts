import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * The user-data store: reads answered by it or not, invalidations by webhook, evictions, and the
 * bytes one user's answers take. No label carries a user, an account or anything kept.
 */
export function userDataMetrics(registry: Registry) {
  const lookups = new Counter({
    name: 'gateway_user_data_lookups_total',
    help: 'Reads of me, accounts and settled transactions: hit (the store answered), miss (the platform did, and the answer was kept), bypass (the store was off-line or failing: the platform answered).',
    labelNames: ['result'],
    registers: [registry],
  });
  const invalidations = new Counter({
    name: 'gateway_user_data_invalidations_total',
    help: 'Changes applied to the store, by cause: a webhook type and code, or an access ending (revoke, delete, reconnect).',
    labelNames: ['cause'],
    registers: [registry],
  });
  const evictions = new Counter({
    name: 'gateway_user_data_evictions_total',
    help: 'Users whose kept answers were dropped: budget (the whole store was full), user-cap (their own cap).',
    labelNames: ['reason'],
    registers: [registry],
  });
  const userBytes = new Histogram({
    name: 'gateway_user_data_user_bytes',
    help: 'Bytes one user\u2019s kept answers take, observed after each write.',
    buckets: [1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'gateway_user_data_store_failures_total',
    help: 'Store commands that failed or timed out (reads then go to the platform for a few seconds).',
    registers: [registry],
  });
  return {
    userDataLookup(result: 'hit' | 'miss' | 'bypass') {
      lookups.inc({ result });
    },
    userDataInvalidation(cause: string) {
      invalidations.inc({ cause });
    },
    userDataEviction(reason: 'budget' | 'user-cap', users: number) {
      evictions.inc({ reason }, users);
    },
    userDataBytes(bytes: number) {
      userBytes.observe(bytes);
    },
    userDataFailure() {
      failures.inc();
    },
  };
}
