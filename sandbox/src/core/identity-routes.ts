import { sendJson } from '@open-finance-gateway/common/http/respond';
import { sandboxId } from '../data/sandbox-ids.js';
import { parseBody, platformError, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { authenticateApp } from './app-auth.js';
import { judgeName } from './name-matcher.js';

/** How long a one-off identity result can be read after the user finished the flow. */
const RESULT_TTL_MS = 24 * 3_600_000;

/**
 * One-off identity verification (`scope=ONEOFF`): the app reads the result with the code from the
 * redirect (`GET /v1/identity/{code}`, app auth) instead of exchanging it for a token, and may
 * verify a name against it. The result holds the demo user's accounts and the banks' names for them.
 */
export function registerIdentityRoutes(router: SandboxRouter, state: SandboxState): void {
  const resultFor = (request: SandboxRequest) => {
    if (!authenticateApp(request, state)) return undefined;
    const code = state.codes.get(request.params.code!);
    if (!code || code.scope !== 'ONEOFF' || code.expiresAt + RESULT_TTL_MS <= state.clock()) {
      platformError(request, 404, 'Not found');
      return undefined;
    }
    const user = state.users.get(code.userId)!;
    const accounts = [...state.accounts.values()].filter((account) => account.sandboxUserId === user._id);
    const parties = state.parties.filter((party) => party.userId === user._id);
    const issued = new Date(code.expiresAt).toISOString();
    return {
      result: {
        _id: sandboxId('identity', request.params.code!),
        status: 'COMPLETE' as const,
        created_at: issued,
        updated_at: issued,
        expires_at: new Date(code.expiresAt + RESULT_TTL_MS).toISOString(),
        source: { _id: accounts[0]?.connection._id, name: accounts[0]?.connection.name },
        identities: parties.map((party) => ({ name: party.value })),
        addresses: [],
        accounts: accounts.map((account) => ({
          name: account.name,
          account_number: account.formatted_account,
          holder: account.meta.holder,
          bank: account.connection.name,
        })),
      },
      accounts,
      parties,
    };
  };

  router.on('GET', '/v1/identity/:code', (request) => {
    const found = resultFor(request);
    if (found) sendJson(request.res, 200, { success: true, item: found.result });
  });

  router.on('POST', '/v1/identity/:code/verify/name', (request) => {
    const found = resultFor(request);
    if (!found) return;
    const body = parseBody(request) as
      { family_name?: unknown; given_name?: unknown; middle_name?: unknown } | undefined;
    if (typeof body?.family_name !== 'string' || body.family_name.trim() === '')
      return platformError(request, 400, 'family_name is a required field');
    const input = {
      family_name: body.family_name,
      given_name: typeof body.given_name === 'string' ? body.given_name : undefined,
      middle_name: typeof body.middle_name === 'string' ? body.middle_name : undefined,
    };
    const sources: unknown[] = [];
    for (const account of found.accounts) {
      const judgement = judgeName(input, account.meta.holder);
      if (judgement)
        sources.push({
          type: 'HOLDER_NAME',
          meta: {
            name: account.name,
            holder: account.meta.holder,
            account_number: account.formatted_account,
            bank: account.connection.name,
          },
          ...judgement,
        });
    }
    for (const party of found.parties) {
      const judgement = judgeName(input, party.value);
      if (judgement)
        sources.push({
          type: 'PARTY_NAME',
          meta: { type: 'INDIVIDUAL', full_name: party.value, family_name: input.family_name },
          ...judgement,
        });
    }
    sendJson(request.res, 200, { success: true, item: { sources } });
  });
}
