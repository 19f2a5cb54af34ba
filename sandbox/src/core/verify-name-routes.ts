import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { SandboxAccount } from '../model/core-model.js';
import { parseBody, platformError, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { visibleAccount } from './account-routes.js';
import { judgeName, type NameInput } from './name-matcher.js';
import { authenticateUser } from './user-auth.js';

function readInput(request: SandboxRequest): NameInput | string {
  const body = parseBody(request) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return 'Request body must be a JSON object';
  if (typeof body.family_name !== 'string' || body.family_name.trim() === '') return 'family_name is a required field';
  for (const key of ['given_name', 'middle_name'] as const) {
    if (body[key] !== undefined && typeof body[key] !== 'string') return `${key} must be a string`;
  }
  return {
    family_name: body.family_name,
    given_name: body.given_name as string | undefined,
    middle_name: body.middle_name as string | undefined,
  };
}

/**
 * Name verification: HOLDER_NAME sources from accounts shared with the app, PARTY_NAME sources
 * from the party behind each connection. The per-account form judges only that account's holder
 * and the party of its connection. Nothing is stored.
 */
function verify(request: SandboxRequest, state: SandboxState, userId: string, accounts: SandboxAccount[]): void {
  const input = readInput(request);
  if (typeof input === 'string') return platformError(request, 400, input);
  const sources: unknown[] = [];
  for (const account of accounts) {
    const judgement = judgeName(input, account.meta.holder);
    if (judgement) {
      sources.push({
        type: 'HOLDER_NAME',
        meta: {
          _id: account._id,
          name: account.name,
          formatted_account: account.formatted_account,
          holder: account.meta.holder,
          has_unlisted_holders: account.meta.has_unlisted_holders ?? false,
        },
        ...judgement,
      });
    }
  }
  const connections = new Set(accounts.map((account) => account.connection._id));
  const parties = new Map<string, string[]>();
  for (const party of state.parties) {
    if (party.userId !== userId || !connections.has(party.connectionId)) continue;
    parties.set(party.value, [...(parties.get(party.value) ?? []), party.connectionId]);
  }
  for (const [value, connectionIds] of parties) {
    const judgement = judgeName(input, value);
    if (judgement) sources.push({ type: 'PARTY_NAME', meta: { value, sources: connectionIds }, ...judgement });
  }
  sendJson(request.res, 200, { success: true, item: { sources, name: input } });
}

export function registerVerifyNameRoutes(router: SandboxRouter, state: SandboxState): void {
  router.on('POST', '/v1/verify/name', (request) => {
    const auth = authenticateUser(request, state);
    if (auth) verify(request, state, auth.user._id, state.visibleAccounts(auth.user._id));
  });
  router.on('POST', '/v1/verify/name/:account', (request) => {
    const auth = authenticateUser(request, state);
    const account = auth && visibleAccount(request, state, auth.user._id, request.params.account!);
    if (account) verify(request, state, auth!.user._id, [account]);
  });
}
