import { platformError, type SandboxRequest } from '../sandbox-http.js';
import type { SandboxState, SandboxUser } from '../sandbox-state.js';
import { appIdProblem } from './app-id-header.js';

/**
 * User-scoped auth as the platform does it: a bearer user token and the app id header (either
 * prefix, see app-id-header.ts), both required. Unknown credentials are 401; a token that was valid and is no longer is 403, the
 * signal the specification tells apps to treat as "this token is dead".
 * Answers the request itself and returns undefined when auth fails.
 */
export function authenticateUser(
  request: SandboxRequest,
  state: SandboxState,
): { user: SandboxUser; token: string } | undefined {
  const authorization = request.req.headers.authorization ?? '';
  const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
  const problem = appIdProblem(request.req.headers, state.credentials.appToken);
  if (problem || token === undefined) {
    platformError(request, 401, problem ?? 'Unauthorized');
    return undefined;
  }
  const record = state.tokens.get(token);
  if (!record) {
    platformError(request, 401, 'Unauthorized');
    return undefined;
  }
  const user = state.users.get(record.userId);
  if (record.revoked || !user) {
    platformError(request, 403, 'Forbidden');
    return undefined;
  }
  return { user, token };
}
