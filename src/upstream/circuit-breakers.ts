import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  ConsecutiveBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { Logger } from '@open-finance-gateway/common/logger';
import { UpstreamError } from './upstream-error.js';

export interface CircuitBreakerSettings {
  /** Consecutive upstream faults that open a circuit. */
  failures: number;
  /** How long an open circuit fails fast before letting one probe call through. */
  halfOpenAfterMs: number;
}

/** A fault of the upstream itself: never one user's 401/403/404/429, which say nothing of its health. */
export function isUpstreamFault(outcome: unknown): boolean {
  if (outcome instanceof UpstreamError) return outcome.kind !== 'http' || (outcome.status ?? 0) >= 500;
  return (
    typeof outcome === 'object' &&
    outcome !== null &&
    typeof (outcome as { status?: unknown }).status === 'number' &&
    (outcome as { status: number }).status >= 500
  );
}

/**
 * One circuit per upstream and operation group (`/v1/accounts…` and `/v1/payments…` fail
 * independently), from cockatiel: consecutive faults open it, it fails fast while open, and after
 * `halfOpenAfterMs` one call probes; success closes it, failure opens it again.
 */
export function createCircuitBreakers(upstream: string, settings: CircuitBreakerSettings, logger: Logger) {
  const circuits = new Map<string, CircuitBreakerPolicy>();

  function circuitFor(group: string): CircuitBreakerPolicy {
    let circuit = circuits.get(group);
    if (!circuit) {
      circuit = circuitBreaker(handleWhen(isUpstreamFault).orWhenResult(isUpstreamFault), {
        halfOpenAfter: settings.halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(settings.failures),
      });
      circuit.onStateChange((state) => {
        const level = state === CircuitState.Open ? 'warn' : 'info';
        logger[level]({ upstream, group, state: CircuitState[state] }, 'upstream circuit changed state');
      });
      circuits.set(group, circuit);
    }
    return circuit;
  }

  return {
    /** Runs one upstream attempt through its group's circuit; an open circuit fails fast. */
    async run<T>(group: string, attempt: () => Promise<T>): Promise<T> {
      try {
        return await circuitFor(group).execute(attempt);
      } catch (error) {
        if (error instanceof BrokenCircuitError) {
          throw new UpstreamError(upstream, 'unavailable', `${upstream} ${group} circuit is open: failing fast`, {
            circuitOpen: true,
          });
        }
        throw error;
      }
    },
  };
}

/** The operation group of a path: its first segment after the version (`/v1/accounts/x` → `accounts`). */
export function operationGroup(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return (segments[0] === 'v1' ? segments[1] : segments[0]) ?? 'root';
}
