import './process-defaults.js';
import 'reflect-metadata';
import { createLogger } from '@open-finance-gateway/common/logger';
import { createApp } from './app.js';
import { loadConfigOrExit } from './config/config.js';
import { forwardEventsToParent } from './lib/parent-events.js';

/** Process entry point: validate config once, start, stop cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env);
  const logger = createLogger({ level: config.logLevel });
  const app = createApp(config, { logger });
  if (config.ipcEvents) {
    const send = process.send?.bind(process);
    if (send) forwardEventsToParent(app.events, (message) => send(message));
    else logger.warn('IPC_EVENTS is set but this process has no IPC channel: events are not forwarded');
  }
  // The one owner of signals (Apollo's own handler is off), listening before start: a signal with
  // no handler kills the process outright, so one arriving just as the gateway starts would skip
  // the drain. A signal during start is held and acted on once start() has finished.
  let started = false;
  let pending: NodeJS.Signals | undefined;
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (!started) {
      // A second one means "now" (start may be waiting on something that never answers).
      if (pending) process.exit(1);
      pending = signal;
      return;
    }
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // SIGTERM comes from an orchestrator behind a load balancer: keep SHUTDOWN_DELAY_MS so it stops
    // routing here first. SIGINT is Ctrl+C in a terminal: nobody is routing, stop once idle.
    app.stop({ delay: signal !== 'SIGINT' }).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  await app.start();
  started = true;
  if (app.sandbox) {
    // The native example needs the issuer (and this gateway, when not the default): the command, ready to paste.
    const nativeExample = `ISSUER=${app.sandbox.identity.issuer}${app.url === 'http://localhost:4000' ? '' : ` GATEWAY_URL=${app.url}`} npm run example:native`;
    process.stdout.write(
      [
        '',
        `  Gateway ready on the embedded sandbox: open ${app.url}/graphql and sign in as a demo user.`,
        `  Sandbox console: ${app.sandbox.consoleUrl} (the demo world, webhook deliveries, payments and every control)`,
        `  Sandbox core API: ${app.sandbox.coreUrl} (controls under /sandbox/…, see the README)`,
        `  Sandbox enrichment API: ${app.sandbox.enrichmentUrl}`,
        `  Sandbox identity provider: ${app.sandbox.identity.issuer} (native client ${app.sandbox.identity.nativeClientId})`,
        `  Native example: ${nativeExample}`,
        '',
        '',
      ].join('\n'),
    );
  }
  if (pending) shutdown(pending);
}

main().catch((error: unknown) => {
  // One line: what failed and why. Everything that had started was stopped by start() itself.
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
