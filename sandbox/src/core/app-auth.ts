import { timingSafeEqual } from 'node:crypto';
import { platformError, type SandboxRequest } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';

/** App-scoped auth: `Authorization: Basic base64(app_token:app_secret)`. Answers 401 itself on failure. */
export function authenticateApp(request: SandboxRequest, state: SandboxState): boolean {
  const header = request.req.headers.authorization ?? '';
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header);
  const expected = Buffer.from(`${state.credentials.appToken}:${state.credentials.appSecret}`);
  const given = match ? Buffer.from(match[1]!, 'base64') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    platformError(request, 401, 'Unauthorized');
    return false;
  }
  return true;
}
