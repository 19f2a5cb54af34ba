import type { Clock } from '@open-finance-gateway/common/clock';

/** Why the shared store cannot take work: it answers too slowly (a stall), or not at all. */
export type StoreHealth = { ok: true } | { ok: false; reason: 'redis: slow' | 'redis: down' };

/** A Redis client the probe sends PING on: commands, or the listener. */
interface Probed {
  readonly status: string;
  ping(): Promise<unknown>;
  on(event: 'ready' | 'close', listener: () => void): unknown;
}

export interface StoreHealthProbe {
  /** A real round trip, bounded by the command timeout; the answer is reused for `cacheMs`. */
  check(): Promise<StoreHealth>;
}

/**
 * Readiness from a real round trip, not the connection's status: a stalled server (a long fork, a
 * frozen disk) keeps its connections "ready" while answering nothing. PING goes on every
 * Redis client the gateway needs (commands, and the listener, where subscribe mode allows PING),
 * each bounded by the command timeout. Probes arriving while one is in flight share it, and its
 * result is reused for a second (or until a connection is lost or restored), so however often a balancer polls, Redis sees one PING per
 * connection per second at most.
 */
export function createRedisHealthProbe(options: {
  clients: Probed[];
  clock: Clock;
  /** @default 1000 */
  cacheMs?: number;
}): StoreHealthProbe {
  const cacheMs = options.cacheMs ?? 1_000;
  let last: { at: number; health: StoreHealth } | undefined;
  let inFlight: Promise<StoreHealth> | undefined;
  // A connection lost or restored changes the answer at once: the cached one is dropped.
  for (const client of options.clients) {
    client.on('ready', () => (last = undefined));
    client.on('close', () => (last = undefined));
  }

  async function probe(client: Probed): Promise<StoreHealth> {
    // Not connected: the command would fail at once (no offline queue) anyway.
    if (client.status !== 'ready') return { ok: false, reason: 'redis: down' };
    try {
      await client.ping();
      return { ok: true };
    } catch (error) {
      const timedOut = error instanceof Error && /timed out/i.test(error.message);
      return { ok: false, reason: timedOut ? 'redis: slow' : 'redis: down' };
    }
  }

  async function probeAll(): Promise<StoreHealth> {
    const results = await Promise.all(options.clients.map(probe));
    // Down outranks slow: it is the state an operator must act on first.
    return (
      results.find((result) => !result.ok && result.reason === 'redis: down') ??
      results.find((result) => !result.ok) ?? { ok: true }
    );
  }

  return {
    check() {
      if (last && options.clock() - last.at < cacheMs) return Promise.resolve(last.health);
      inFlight ??= probeAll().then((health) => {
        last = { at: options.clock(), health };
        inFlight = undefined;
        return health;
      });
      return inFlight;
    },
  };
}
