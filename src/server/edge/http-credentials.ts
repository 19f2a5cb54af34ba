import type { IncomingMessage } from 'node:http';
import type { RequestAuthenticator } from '../../auth/request-authentication.js';
import type { Session } from '../../auth/session-manager.js';
import type { Refusal } from './refusal-table.js';

/** Who an HTTP request is: its session, and when the access token it came with expires (none for a cookie). */
export interface Credentials {
  session: Session;
  via: 'cookie' | 'bearer';
  tokenExpiresAt: number | undefined;
}

/**
 * An HTTP request's credentials (the session cookie, or `Authorization: Bearer`) as a session, or
 * the refusal to answer: every GraphQL route over HTTP asks this one question.
 */
export async function credentialsOf(
  authenticator: RequestAuthenticator,
  req: IncomingMessage,
): Promise<Credentials | { refusal: Refusal }> {
  const authentication = await authenticator.authenticate(req.headers);
  if (!authentication) return { refusal: { kind: 'sign-in-first' } };
  if (!authentication.ok) return { refusal: { kind: 'credentials', refusal: authentication.refusal } };
  const tokenExpiresAt = authentication.via === 'bearer' ? authentication.tokenExpiresAt : undefined;
  return { session: authentication.session, via: authentication.via, tokenExpiresAt };
}
