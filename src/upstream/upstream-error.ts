/**
 * Why an upstream call failed, in terms the GraphQL layer can map to client codes without ever
 * seeing the upstream body. `platformMessage` is kept for logs and for the few cases where the
 * specification says the message is meant for the user (a forbidden refresh).
 */
export type UpstreamFailureKind =
  /** The deadline passed before a complete response arrived. */
  | 'timeout'
  /** Connection refused, reset, DNS failure: nothing usable came back. */
  | 'unavailable'
  /** A response arrived with a non-2xx status. */
  | 'http'
  /** A 2xx response whose body was not what the contract promises (or was too large). */
  | 'bad_response';

export class UpstreamError extends Error {
  constructor(
    readonly upstream: string,
    readonly kind: UpstreamFailureKind,
    message: string,
    readonly details: {
      status?: number;
      platformMessage?: string;
      oauthError?: string;
      retryAfterSeconds?: number;
      circuitOpen?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'UpstreamError';
  }

  get status(): number | undefined {
    return this.details.status;
  }
}

/**
 * The platform answered 403 to a user-scoped call: the user access token is no longer valid
 * (revoked in or outside the app). The gateway has already forgotten the user when this is thrown.
 */
export class AccessRevokedError extends Error {
  constructor() {
    super('The platform no longer accepts this user access token');
    this.name = 'AccessRevokedError';
  }
}

/** `POST /refresh` answered 403 while the token is still valid: the platform's message says why. */
export class RefreshForbiddenError extends Error {
  constructor(readonly platformMessage: string) {
    super(platformMessage);
    this.name = 'RefreshForbiddenError';
  }
}
