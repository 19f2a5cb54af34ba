import { sendJson } from '@open-finance-gateway/common/http/respond';
import { authenticateApp } from '../core/app-auth.js';
import { platformError, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import type { SigningKeys } from './signing-keys.js';

export function registerKeyRoutes(router: SandboxRouter, state: SandboxState, keys: SigningKeys): void {
  router.on('GET', '/v1/keys/:id', (request) => {
    if (!authenticateApp(request, state)) return;
    const id = request.params.id!;
    const key = /^[1-9]\d{0,9}$/.test(id) ? keys.lookup(Number(id)) : undefined;
    if (!key) return platformError(request, 404, 'Not found');
    if (key.expired) return platformError(request, 400, 'This key has expired');
    sendJson(request.res, 200, { success: true, item: key.publicPem });
  });
}
