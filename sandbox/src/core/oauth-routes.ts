import { redirect, sendHtml, sendJson } from '@open-finance-gateway/common/http/respond';
import { randomToken } from '@open-finance-gateway/common/ids';
import { parseBody, type SandboxRequest, type SandboxRouter } from '../sandbox-http.js';
import type { SandboxState } from '../sandbox-state.js';
import { consentPage, errorPage, type ConsentChoice } from './consent-page.js';

const SCOPES = new Set(['ENDURING_CONSENT', 'ONEOFF']);

export interface OAuthOptions {
  codeTtlMs: number;
  /** The app's name as registered with the platform: the consent page says who asks. */
  appName: string;
  /** The demo app users' sign-in e-mails by name, so the consent page can say which customer is whose. */
  appUserEmails: () => Map<string, string>;
  /**
   * A user who already gave this app access consented again: a reconnection, after which (as on
   * the live platform) the accounts it had lost access to (INACTIVE) are ACTIVE again. A first
   * consent changes nothing, so the demo world's INACTIVE account stays so until someone reconnects.
   */
  onConsentAgain: (userId: string) => void;
}

/**
 * The authorization-code flow: the hosted consent page and `POST /v1/token`. Errors before the
 * redirect URI is known to be registered are shown as a page, never redirected (RFC 6749 §4.1.2.1).
 */
export function registerOAuthRoutes(router: SandboxRouter, state: SandboxState, options: OAuthOptions): void {
  const authorizePage = ({ url, res }: SandboxRequest) => {
    const problem = validateClient(url.searchParams, state);
    if (problem) return sendHtml(res, 400, errorPage(problem));
    const emails = options.appUserEmails();
    const choices: ConsentChoice[] = [...state.users.values()].map((user) => ({
      user,
      appUserEmail: emails.get(user.preferred_name),
    }));
    sendHtml(res, 200, consentPage(url.searchParams, choices, options.appName));
  };
  router.on('GET', '/oauth/authorize', authorizePage);
  // The live platform serves it at its OAuth origin's root (the SDK's default path is empty).
  router.on('GET', '/', authorizePage);

  router.on('POST', '/oauth/authorize', (request) => {
    const form = new URLSearchParams((parseBody(request) as Record<string, string> | undefined) ?? {});
    const problem = validateClient(form, state);
    if (problem) return sendHtml(request.res, 400, errorPage(problem));
    const back = new URL(form.get('redirect_uri')!);
    const stateParam = form.get('state');
    if (stateParam !== null && stateParam !== '') back.searchParams.set('state', stateParam);
    const scope = form.get('scope') ?? '';
    if (!SCOPES.has(scope)) {
      back.searchParams.set('error', 'invalid_scope');
      return redirect(request.res, back.href);
    }
    if (form.get('decision') !== 'allow') {
      back.searchParams.set('error', 'access_denied');
      return redirect(request.res, back.href);
    }
    const user = state.users.get(form.get('user') ?? '');
    if (!user) return sendHtml(request.res, 400, errorPage('Unknown demo user.'));
    const code = randomToken(24);
    state.codes.set(code, {
      userId: user._id,
      clientId: form.get('client_id')!,
      redirectUri: form.get('redirect_uri')!,
      scope,
      expiresAt: state.clock() + options.codeTtlMs,
      used: false,
    });
    back.searchParams.set('code', code);
    const again = [...state.tokens.values()].some((token) => token.userId === user._id && !token.revoked);
    if (again) options.onConsentAgain(user._id);
    redirect(request.res, back.href);
  });

  router.on('POST', '/v1/token', (request) => exchangeCode(request, state));
}

function validateClient(params: URLSearchParams, state: SandboxState): string | undefined {
  if (params.get('client_id') !== state.credentials.appToken) return 'Unknown client_id.';
  const redirectUri = params.get('redirect_uri') ?? '';
  if (!state.redirectUris.has(redirectUri))
    return `redirect_uri ${redirectUri || '(missing)'} is not registered for this app.`;
  if (params.get('response_type') !== 'code') return 'response_type must be code.';
  return undefined;
}

function oauthError(request: SandboxRequest, status: number, error: string): void {
  sendJson(request.res, status, { success: false, error });
}

function exchangeCode(request: SandboxRequest, state: SandboxState): void {
  const body = parseBody(request) as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return oauthError(request, 400, 'invalid_request');
  if (body.grant_type !== 'authorization_code') return oauthError(request, 400, 'unsupported_grant_type');
  if (body.client_id !== state.credentials.appToken || body.client_secret !== state.credentials.appSecret) {
    return oauthError(request, 400, 'invalid_client');
  }
  const code = typeof body.code === 'string' ? state.codes.get(body.code) : undefined;
  if (!code || code.clientId !== body.client_id) return oauthError(request, 400, 'invalid_grant');
  if (code.used) {
    // A replayed code may mean it was intercepted: revoke what it already bought.
    if (code.issuedToken) state.tokens.get(code.issuedToken)!.revoked = true;
    return oauthError(request, 400, 'invalid_grant');
  }
  code.used = true;
  if (code.expiresAt <= state.clock()) return oauthError(request, 400, 'expired_grant');
  if (body.redirect_uri !== code.redirectUri) return oauthError(request, 400, 'invalid_grant');

  const accessToken = `user_token_${randomToken(24)}`;
  state.tokens.set(accessToken, { userId: code.userId, scope: code.scope, grantedAt: state.clock(), revoked: false });
  code.issuedToken = accessToken;
  sendJson(request.res, 200, { success: true, access_token: accessToken, token_type: 'bearer', scope: code.scope });
}
