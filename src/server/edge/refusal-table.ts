import type { GraphQLFormattedError } from 'graphql';
import type { AuthRefusal } from '../../auth/request-authentication.js';
import { ErrorCode } from '../../graphql/errors.js';
import type { Ending } from '../../operation-core/endings.js';
import { CloseCode } from './close-codes.js';

/**
 * Why a request, a socket or a stream is refused or ended: an authentication refusal, a limit, or
 * an ending of a live operation, in the words of the authenticator and the operation core.
 */
export type Refusal =
  /** No credentials, or a session cookie whose session is gone. */
  | { kind: 'sign-in-first' }
  /** Credentials that were read and refused (a bad or expired token, both a cookie and a token, …). */
  | { kind: 'credentials'; refusal: AuthRefusal }
  | { kind: 'body-too-large'; limitBytes: number }
  /** A request a browser could send cross-site without a preflight (CSRF prevention). */
  | { kind: 'cross-site' }
  | Ending;

/** A refusal on HTTP: the status, the headers, and the coded errors of its body. */
export interface HttpRefusal {
  status: number;
  headers: Record<string, string>;
  errors: GraphQLFormattedError[];
}

/** A refusal on a socket: its close code and reason. */
export interface SocketClose {
  code: number;
  reason: string;
}

/** The one hint every transport gives a client without a session. */
const SIGN_IN_FIRST = 'Sign in first: GET /auth/login starts the sign-in.';

const CSRF_MESSAGE =
  "This operation has been blocked as a potential Cross-Site Request Forgery (CSRF). Send 'content-type: application/json' or a non-empty 'apollo-require-preflight' header.";

const coded = (message: string, code: string, extensions: Record<string, unknown> = {}): GraphQLFormattedError => ({
  message,
  extensions: { ...extensions, code },
});

/**
 * RFC 6750: a refused access token is told why in the challenge, on every route that took it. A
 * 401 refusal is always about the Authorization a client sent: a cookie is never refused, only
 * found or not (sign in first).
 */
function bearerChallenge(refusal: AuthRefusal): Record<string, string> {
  if (refusal.status !== 401) return {};
  const error = refusal.reason === 'MALFORMED_AUTHORIZATION' ? 'invalid_request' : 'invalid_token';
  return { 'www-authenticate': `Bearer error="${error}"` };
}

/** The refusal on HTTP, for the /graphql handler, multipart and graphql-sse alike. */
export function httpRefusal(refusal: Refusal): HttpRefusal {
  switch (refusal.kind) {
    case 'sign-in-first':
      return { status: 401, headers: {}, errors: [coded(SIGN_IN_FIRST, ErrorCode.UNAUTHENTICATED)] };
    case 'credentials': {
      const { status, code, reason, message } = refusal.refusal;
      return { status, headers: bearerChallenge(refusal.refusal), errors: [coded(message, code, { reason })] };
    }
    case 'body-too-large':
      return {
        status: 413,
        headers: { connection: 'close' },
        errors: [coded(`Request body exceeds ${refusal.limitBytes} bytes.`, 'BAD_REQUEST')],
      };
    case 'cross-site':
      return { status: 400, headers: {}, errors: [coded(CSRF_MESSAGE, 'BAD_REQUEST')] };
    case 'session-ended':
      return {
        status: 401,
        headers: {},
        errors: [
          coded('The session ended (sign-out, revocation or expiry): sign in again.', ErrorCode.UNAUTHENTICATED, {
            reason: 'SESSION_ENDED',
          }),
        ],
      };
    case 'token-expired':
      return {
        status: 401,
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
        errors: [
          coded(
            'The access token expired: get a new one and subscribe again (with `after`).',
            ErrorCode.UNAUTHENTICATED,
            { reason: 'TOKEN_EXPIRED' },
          ),
        ],
      };
    case 'going-away':
      return {
        status: 503,
        headers: {},
        errors: [
          coded(
            'The gateway is shutting down: subscribe again (with `after`) to resume.',
            ErrorCode.SERVICE_UNAVAILABLE,
          ),
        ],
      };
    case 'too-many':
      return {
        status: 429,
        headers: {},
        errors: [
          coded(
            `This ${refusal.cap} holds ${refusal.limit} sockets and subscription streams already; close one first.`,
            ErrorCode.LIMIT_EXCEEDED,
            { limit: refusal.limit, cap: refusal.cap },
          ),
        ],
      };
  }
}

/** The close code of an authentication refusal: its HTTP status's twin in graphql-ws's range. */
const CLOSE_OF_STATUS: Record<AuthRefusal['status'], number> = {
  400: CloseCode.BAD_CREDENTIALS,
  401: CloseCode.SESSION_ENDED,
  403: CloseCode.FORBIDDEN,
  503: CloseCode.TRY_AGAIN_LATER,
};

/** The refusal on a socket: how it closes. */
export function socketClose(refusal: Refusal): SocketClose {
  switch (refusal.kind) {
    case 'sign-in-first':
      return { code: CloseCode.FORBIDDEN, reason: 'Forbidden' };
    case 'credentials':
      return { code: CLOSE_OF_STATUS[refusal.refusal.status], reason: refusal.refusal.reason };
    case 'body-too-large':
      return { code: CloseCode.MESSAGE_TOO_BIG, reason: 'Message too big' };
    case 'cross-site':
      return { code: CloseCode.FORBIDDEN, reason: 'Forbidden' };
    case 'session-ended':
      return { code: CloseCode.SESSION_ENDED, reason: 'Session ended' };
    case 'token-expired':
      return { code: CloseCode.SESSION_ENDED, reason: 'Access token expired' };
    case 'going-away':
      return { code: CloseCode.GOING_AWAY, reason: 'Going away' };
    case 'too-many':
      return { code: CloseCode.TOO_MANY_SOCKETS, reason: `Too many sockets for this ${refusal.cap}` };
  }
}
