import type { Session } from '../auth/session-manager.js';
import type { Logger } from '../lib/logger.js';
import type { RequestLoaders } from '../loaders/request-loaders.js';

/**
 * Per-request data handed to resolvers. Resolvers are singletons: everything request-specific,
 * and every way to reach an upstream, arrives here.
 */
export interface GatewayContext {
  /** The signed-in user. Deliberately without the access token: loaders already hold it. */
  user: { id: string };
  loaders: RequestLoaders;
  logger: Logger;
}

export function userOf(session: Session): GatewayContext['user'] {
  return { id: session.userId };
}
