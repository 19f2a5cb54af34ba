import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { AppParts, Running, StopOptions } from './lifecycle.js';

/**
 * Graceful shutdown, in the order a load balancer needs: readiness fails at once (and webhooks
 * get 503, so the platform retries them elsewhere or later), new connections are still served
 * for `SHUTDOWN_DELAY_MS` while the balancer notices, then sockets close with 1001 and HTTP
 * subscription streams end with a coded last frame, the listener
 * closes, and in-flight requests get `SHUTDOWN_GRACE_MS` to finish before connections are cut.
 * Without the delay (`{ delay: false }`) the same order runs at once: in-flight work still
 * finishes and webhooks arriving while draining still get 503.
 */
export async function stopApp(parts: AppParts, options: StopOptions = {}): Promise<void> {
  const { config, logger, holder } = parts;
  const delayMs = options.delay === false ? 0 : config.shutdown.delayMs;
  if (holder.lifecycle.phase !== 'running') {
    if (holder.lifecycle.phase !== 'draining') holder.lifecycle = { phase: 'stopped' };
    return;
  }
  const running: Running = { ...holder.lifecycle, phase: 'draining' };
  holder.lifecycle = running;
  logger.info({ delayMs, graceMs: config.shutdown.graceMs }, 'draining: readiness now fails');
  if (delayMs > 0) await delay(delayMs);
  await running.liveTransports.close();
  await closeServer(running.server, config.shutdown.graceMs);
  holder.lifecycle = { phase: 'stopped' };
  await closeEverything(parts, running);
  logger.info('gateway stopped');
}

/** Closes the listener once in-flight requests finish, cutting what is left after the grace. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    // Connections that finish their response after close() started linger as keep-alive
    // sockets: keep closing idle ones until the server is down, and cut the rest after a grace.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** After the listener: the metrics listener, the event log, Apollo, tokens, upstreams, stores, the sandbox, traces. */
async function closeEverything({ config, logger, holder }: AppParts, running: Running): Promise<void> {
  const { metricsListener } = holder;
  if (metricsListener) await new Promise((resolve) => metricsListener.close(resolve));
  holder.metricsListener = undefined;
  await running.eventLog.close();
  await running.apollo.stop();
  await revokeForgottenTokens(running, config.shutdown.graceMs, logger);
  await Promise.all(running.upstreams.map((upstream) => upstream.close()));
  running.revoker.close();
  await running.stores.close();
  await running.sandbox?.stop();
  await holder.tracing
    ?.shutdown()
    .catch((error: unknown) => logger.warn({ err: { message: (error as Error).message } }, 'could not flush traces'));
  holder.tracing = undefined;
}
/**
 * With state in memory, the bank connections die with the process while the platform would go
 * on honouring their tokens: consent nobody can use or end. A graceful stop revokes them (their
 * users connect again after the restart, as they would have to anyway), within the shutdown
 * grace. A crash cannot; Redis (REDIS_URL) keeps connections across restarts instead.
 */
async function revokeForgottenTokens(running: Running, graceMs: number, logger: Logger): Promise<void> {
  const tokens = running.stores.tokensLostOnStop();
  if (tokens.length === 0) return;
  let failed = 0;
  const revocations = Promise.all(
    tokens.map(async ({ userId, token }) => {
      if (!(await running.revoker.revokeNow(userId, token))) failed += 1;
    }),
  );
  const outcome = await Promise.race([
    revocations.then(() => 'done' as const),
    delay(graceMs, 'timeout' as const, { ref: false }),
  ]);
  const log = outcome === 'timeout' || failed > 0 ? logger.warn.bind(logger) : logger.info.bind(logger);
  log(
    { tokens: tokens.length, failed, timedOut: outcome === 'timeout' },
    'bank connections held only in memory: revoked at shutdown (their users connect again)',
  );
}
