import type { GatewayConfig } from '../config/config.js';
import type { ReadinessCheck } from './readiness-checks.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The sandbox this gateway runs against on this machine, if it does: embedded, or on loopback (`npm run dev`). */
function sandboxHere(config: GatewayConfig): string | undefined {
  if (config.core.baseUrl === undefined) return 'the embedded sandbox';
  return LOOPBACK.has(new URL(config.core.baseUrl).hostname) ? 'a platform sandbox on this machine' : undefined;
}

/**
 * The accreditation readiness report's start-up line, worded for where the gateway runs. Wherever
 * it may be production, the verdicts with each check's fix, for an operator's log search. On a
 * sandbox on this machine, what the rules ask of production (https, Redis, the app's identity
 * provider, a privacy notice) is not there and is not meant to be: the line says how much is met and
 * that the rest is for production, with no "fail" on a newcomer's first screen.
 */
export function readinessLogLine(
  config: GatewayConfig,
  checks: readonly ReadinessCheck[],
): { fields: Record<string, unknown>; message: string } {
  const count = (verdict: ReadinessCheck['verdict']) => checks.filter((check) => check.verdict === verdict).length;
  const where = sandboxHere(config);
  if (where) {
    const met = count('pass');
    const rest = checks.length - met;
    return {
      fields: { met, forProduction: rest },
      message: `accreditation readiness: ${met} of ${checks.length} checks met on ${where}; the other ${rest} are for production (npm run readiness lists each with its setting)`,
    };
  }
  return {
    fields: {
      pass: count('pass'),
      warn: count('warn'),
      fail: count('fail'),
      checks: checks.map(({ id, verdict, fix }) => ({ id, verdict, ...(fix ? { fix } : {}) })),
    },
    message: 'accreditation readiness (npm run readiness for the full report)',
  };
}
