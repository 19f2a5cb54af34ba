import './process-defaults.js';
import 'reflect-metadata';
import { createApp } from './app.js';
import { loadConfigOrExit } from './config/config.js';
import { createLogger } from './lib/logger.js';
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
  await app.start();
  if (app.sandbox) {
    process.stdout.write(
      [
        '',
        `  Gateway ready on the embedded sandbox: open ${app.url}/graphql and sign in as a demo user.`,
        `  Sandbox console: ${app.sandbox.consoleUrl} (the demo world, webhook deliveries, payments and every control)`,
        `  Sandbox core API: ${app.sandbox.coreUrl} (controls under /sandbox/…, see the README)`,
        `  Sandbox enrichment API: ${app.sandbox.enrichmentUrl}`,
        '',
        '',
      ].join('\n'),
    );
  }

  // The one owner of signals (Apollo's own handler is off): drain in order, then exit.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  // One line: what failed and why. Everything that had started was stopped by start() itself.
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
