import type { ServerResponse } from 'node:http';
import { sendHtml, sendJson } from '@open-finance-gateway/common/http/respond';
import type { Sandbox } from '../sandbox-api.js';
import { parseBody, platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState, ServiceFault } from '../sandbox-state.js';
import { CONSOLE_SCRIPT, consolePage } from './console-page.js';
import { consoleSnapshot, keptDataByUser } from './console-state.js';

/** Changes are announced at most this often: a burst of deliveries is one refresh. */
const ANNOUNCE_EVERY_MS = 100;

/**
 * The sandbox console (`/console`): the demo world and the webhook delivery log, with a button
 * for every control, updated live through server-sent events. Served from the package (no CDN).
 * Like the other controls it has no auth: the sandbox listens on 127.0.0.1 unless told otherwise,
 * and control requests must be JSON, which a foreign web page cannot send without a preflight the
 * sandbox never grants.
 */
export function registerConsoleRoutes(router: SandboxRouter, state: SandboxState, sandbox: Sandbox): () => void {
  const watchers = new Set<ServerResponse>();
  let pending: NodeJS.Timeout | undefined;
  const announce = () => {
    pending ??= setTimeout(() => {
      pending = undefined;
      for (const watcher of watchers) watcher.write('event: change\ndata: {}\n\n');
    }, ANNOUNCE_EVERY_MS);
  };
  const stops = [sandbox.deliveries.onChange(announce), sandbox.payments.onChange(announce)];
  // An embedding gateway's kept data changes as it reads the platform: each core call is a change.
  stops.push(
    sandbox.onRequest((request) => {
      if (state.keptData && request.service === 'core') announce();
    }),
  );

  router.on('GET', '/console', ({ res }) => sendHtml(res, 200, consolePage(), CONSOLE_HEADERS));
  router.on('GET', '/console/app.js', ({ res }) => {
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
    res.end(CONSOLE_SCRIPT);
  });
  router.on('GET', '/console/state', async ({ res }) =>
    sendJson(res, 200, consoleSnapshot(state, sandbox, await keptDataByUser(state, sandbox))),
  );
  router.on('GET', '/console/events', ({ req, res }) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    watchers.add(res);
    req.on('close', () => watchers.delete(res));
  });

  // Fault injection, so the gateway's behaviour under failure can be shown from the console.
  router.on('POST', '/sandbox/faults', (request) => {
    const body = (parseBody(request) ?? {}) as Record<string, unknown>;
    if (body.service !== 'core' && body.service !== 'enrichment')
      return platformError(request, 400, 'service must be core or enrichment');
    const fault: ServiceFault = {};
    if (typeof body.status === 'number' && body.status >= 400 && body.status <= 599) fault.status = body.status;
    if (typeof body.delayMs === 'number' && body.delayMs > 0 && body.delayMs <= 60_000) fault.delayMs = body.delayMs;
    if (typeof body.times === 'number' && body.times > 0) fault.times = body.times;
    if (typeof body.pathPrefix === 'string' && body.pathPrefix.startsWith('/v1/')) fault.pathPrefix = body.pathPrefix;
    if (body.dropResponse === true) fault.dropResponse = true;
    if (!fault.status && !fault.delayMs && !fault.dropResponse)
      return platformError(request, 400, 'give a status (400-599), a delayMs or dropResponse: true');
    if (body.service === 'core') sandbox.setCoreFault(fault);
    else sandbox.setEnrichmentFault(fault);
    announce();
    sendJson(request.res, 200, { success: true });
  });
  router.on('DELETE', '/sandbox/faults', ({ res }) => {
    sandbox.setCoreFault({});
    sandbox.setEnrichmentFault({});
    announce();
    sendJson(res, 200, { success: true });
  });

  return () => {
    for (const stop of stops) stop();
    if (pending) clearTimeout(pending);
    for (const watcher of watchers) watcher.end();
    watchers.clear();
  };
}

/** The console runs only its own script and styles: nothing inline, nothing from elsewhere. */
const CONSOLE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};
