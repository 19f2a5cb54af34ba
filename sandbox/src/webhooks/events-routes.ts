import { sendJson } from '@open-finance-gateway/common/http/respond';
import { authenticateApp } from '../core/app-auth.js';
import { platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import type { DeliveryEngine } from './delivery-engine.js';

/** `GET /v1/webhook-events` (app auth): the delivery log, filtered by status and time (default 30 days). */
export function registerWebhookEventRoutes(router: SandboxRouter, state: SandboxState, engine: DeliveryEngine): void {
  router.on('GET', '/v1/webhook-events', (request) => {
    if (!authenticateApp(request, state)) return;
    const query = request.url.searchParams;
    const status = query.get('status');
    if (status !== null && !['SENT', 'FAILED', 'RETRY'].includes(status))
      return platformError(request, 400, 'status must be SENT, FAILED or RETRY');
    const end = query.get('end') ? Date.parse(query.get('end')!) : state.clock();
    const start = query.get('start') ? Date.parse(query.get('start')!) : end - 30 * 86_400_000;
    if (Number.isNaN(start) || Number.isNaN(end))
      return platformError(request, 400, 'start and end must be ISO 8601 timestamps');
    const items = engine.events.filter((event) => {
      const created = Date.parse(event.created_at);
      return created > start && created <= end && (status === null || event.status === status);
    });
    sendJson(request.res, 200, { success: true, items: items.map(({ attempts: _attempts, ...event }) => event) });
  });
}
