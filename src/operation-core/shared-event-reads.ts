import type { GatewayContext } from '../graphql/context.js';
import { withOwnEnrichment } from '../loaders/request-loaders.js';
import { withLoaders } from './context/lazy-context.js';

/** How long an event's reads are shared: long enough for every subscriber to execute it. */
const SHARE_MS = 5_000;

/**
 * One re-read per event per user: every subscription of a user that executes the same event (by
 * its cursor) uses the platform reads (payment, transfer, account, …) of the first one, so 100
 * subscriptions cost one `GET /v1/payments/{id}`, not 100, and stay within the user's share of
 * upstream calls. The enrichment loader stays per execution: each keeps its own budget and errors.
 */
export function createSharedEventReads() {
  const shared = new Map<string, GatewayContext['loaders']>();
  return (userId: string, event: unknown, context: GatewayContext): GatewayContext => {
    const cursor = typeof event === 'object' && event !== null ? (event as { cursor?: unknown }).cursor : undefined;
    if (typeof cursor !== 'string') return context;
    const key = `${userId}|${cursor}`;
    let loaders = shared.get(key);
    if (!loaders) {
      loaders = context.loaders;
      shared.set(key, loaders);
      setTimeout(() => shared.delete(key), SHARE_MS).unref();
    }
    // The shared reads, with this execution's own enrichment loader; no loader is built until used.
    return withLoaders(
      context,
      withOwnEnrichment(loaders, () => context.loaders.enrichment),
    );
  };
}
