import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseCookies } from 'cookie';
import { LRUCache } from 'lru-cache';
import type { Clock } from '@open-finance-gateway/common/clock';
import { deviceSessionKey } from '../redis/redis-keys.js';
import type { AccessTokenCheck, AccessTokenClaims, AccessTokenRefusal } from './access-token.js';
import type { BankConnectionStore } from './bank-connection-store.js';
import type { SessionEndingsBus } from './session-endings.js';
import type { Session, SessionManager } from './session-manager.js';

/** Why a request's credentials were refused: the HTTP status, the client code and a reason to branch on. */
export interface AuthRefusal {
  status: 400 | 401 | 403 | 503;
  code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'SERVICE_UNAVAILABLE';
  /** `AMBIGUOUS_CREDENTIALS`, `ORIGIN_NOT_ALLOWED`, `MALFORMED_AUTHORIZATION`, `ACCESS_ENDED`, `TOKEN_<refusal>`. */
  reason: string;
  message: string;
}

/**
 * Who a request is: the session (a browser's, by cookie; or a device's, by access token), or
 * why not. `undefined`: no credentials, or a cookie whose session is gone (sign in first).
 */
export type Authentication =
  | { ok: true; session: Session; via: 'cookie' }
  | { ok: true; session: Session; via: 'bearer'; tokenExpiresAt: number }
  | { ok: false; refusal: AuthRefusal };

export interface RequestAuthenticatorOptions {
  sessions: SessionManager;
  bankConnections: BankConnectionStore;
  endings: SessionEndingsBus;
  /** The public origin and ALLOWED_ORIGINS: the only browser origins a bearer request may come from. */
  allowedOrigins: () => ReadonlySet<string>;
  /** checkAccessToken with the issuer, audience, keys and clients bound; undefined: no native clients. */
  checkToken: ((token: string, now: number) => Promise<AccessTokenCheck>) | undefined;
  clock: Clock;
}

const refuse = (status: AuthRefusal['status'], code: AuthRefusal['code'], reason: string, message: string) => ({
  ok: false as const,
  refusal: { status, code, reason, message },
});

const TOKEN_MESSAGES: Partial<Record<AccessTokenRefusal, string>> = {
  expired: 'The access token has expired: refresh it.',
  too_large: 'The access token is larger than any access token needs to be.',
  key_budget: 'The access token names a signing key the gateway does not hold; try again shortly.',
  keys_unavailable: "The identity provider's signing keys cannot be fetched now; try again shortly.",
};

/**
 * The one place a request's credentials become a session, for every transport (HTTP, graphql-ws'
 * `connection_init`, and any other that hands over headers): the session cookie, or an access
 * token from the app's identity provider (`Authorization: Bearer`), never both. A device's token
 * becomes a session record of its own (one per token family: the token's `sid`, else its client),
 * so the same user is the same user however they came, and ending access ends both.
 */
export function createRequestAuthenticator(options: RequestAuthenticatorOptions) {
  /** Tokens whose signature and claims passed: checking again costs a signature verification. */
  const verified = new LRUCache<string, AccessTokenClaims>({ max: 10_000 });

  async function claimsOf(token: string, now: number): Promise<AccessTokenCheck> {
    const known = verified.get(token);
    if (known) return known.expiresAt + 30_000 > now ? { ok: true, claims: known } : { ok: false, reason: 'expired' };
    const checked = await options.checkToken!(token, now);
    if (checked.ok) verified.set(token, checked.claims);
    return checked;
  }

  async function bearer(token: string): Promise<Authentication> {
    if (!options.checkToken)
      return refuse(401, 'UNAUTHENTICATED', 'TOKEN_NOT_ACCEPTED', 'This gateway accepts no access tokens.');
    const now = options.clock();
    const checked = await claimsOf(token, now);
    if (!checked.ok) {
      const retryable = checked.reason === 'key_budget' || checked.reason === 'keys_unavailable';
      return refuse(
        retryable ? 503 : 401,
        retryable ? 'SERVICE_UNAVAILABLE' : 'UNAUTHENTICATED',
        `TOKEN_${checked.reason.toUpperCase()}`,
        TOKEN_MESSAGES[checked.reason] ?? 'The access token is not valid for this gateway.',
      );
    }
    const { claims } = checked;
    const device = claims.sid ?? `client:${claims.clientId}`;
    const notBefore = await options.endings.accessNotBefore(claims.sub, device);
    if (notBefore !== undefined && claims.issuedAt < notBefore)
      return refuse(401, 'UNAUTHENTICATED', 'ACCESS_ENDED', 'Access was ended for this user or device: sign in again.');
    // A new key after each ending: an ended device's key is never written again.
    const key = deviceSessionKey(claims.sub, `${device}|${notBefore ?? 0}`);
    let record = await options.sessions.touch(key);
    if (!record || record.expiresAt < claims.expiresAt) {
      const connection = record ? undefined : await options.bankConnections.get(claims.sub);
      const platformToken = record ? record.platformToken : connection?.platformToken;
      const fresh = {
        userId: claims.sub,
        ...(platformToken === undefined ? {} : { platformToken }),
        authTime: claims.authTime ?? 0,
        amr: claims.amr,
        createdAt: record?.createdAt ?? now,
        expiresAt: claims.expiresAt,
        lastSeenAt: now,
        client: { id: claims.clientId, device },
      };
      await options.sessions.startDevice(key, fresh);
      if (!record) {
        // Access may have ended between the read above and this write: the ending deleted the
        // user's records before this one existed, so this one ends here (and any socket with it).
        const since = await options.endings.accessNotBefore(claims.sub, device);
        if (since !== notBefore && since !== undefined && claims.issuedAt < since) {
          await options.sessions.endOne(claims.sub, { ...fresh, sessionKey: key });
          return refuse(
            401,
            'UNAUTHENTICATED',
            'ACCESS_ENDED',
            'Access was ended for this user or device: sign in again.',
          );
        }
        // A device's first token counts as a sign-in: the bank connection stays needed.
        if (connection) await options.bankConnections.touch(claims.sub);
      }
      record = { ...fresh, sessionKey: key };
    }
    // This token's own facts: its multi-factor and its end, whatever the device's other tokens say.
    const session: Session = { ...record, authTime: claims.authTime ?? 0, amr: claims.amr };
    return { ok: true, session, via: 'bearer', tokenExpiresAt: claims.expiresAt };
  }

  return {
    /**
     * A request's credentials: its headers (and, on a socket, the `authorization` of its
     * `connection_init` payload in place of the header).
     */
    async authenticate(
      headers: IncomingHttpHeaders,
      authorization: string | undefined = headers.authorization,
    ): Promise<Authentication | undefined> {
      const hasCookie = headers.cookie !== undefined && options.sessions.hasCookie(parseCookies(headers.cookie));
      if (authorization === undefined) {
        if (!hasCookie) return undefined;
        const session = await options.sessions.read({ headers });
        return session ? { ok: true, session, via: 'cookie' } : undefined;
      }
      if (hasCookie)
        return refuse(
          400,
          'UNAUTHENTICATED',
          'AMBIGUOUS_CREDENTIALS',
          'Send either the session cookie or an access token, not both.',
        );
      const origin = headers.origin;
      if (origin !== undefined && !options.allowedOrigins().has(origin))
        return refuse(
          403,
          'FORBIDDEN',
          'ORIGIN_NOT_ALLOWED',
          'Access tokens are for native and server clients: a browser app on this origin signs in with the session cookie.',
        );
      const match = /^Bearer +([\x21-\x7E]+) *$/i.exec(authorization);
      if (!match)
        return refuse(
          401,
          'UNAUTHENTICATED',
          'MALFORMED_AUTHORIZATION',
          'The Authorization header must be "Bearer <access token>".',
        );
      return bearer(match[1]!);
    },
  };
}

export type RequestAuthenticator = ReturnType<typeof createRequestAuthenticator>;
