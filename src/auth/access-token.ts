import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';

/**
 * Why an access token was refused. Each is answered 401 (`retryable` ones 503: the gateway could
 * not tell), and none costs a platform call.
 */
export type AccessTokenRefusal =
  /** Larger than any access token needs to be: refused before it is parsed. */
  | 'too_large'
  /** Not a compact JWS, or its header or claims are not JSON. */
  | 'malformed'
  /** `alg` is not on ACCESS_TOKEN_ALGORITHMS (`none` and HS* never are). */
  | 'algorithm'
  /** Not an RFC 9068 access token (`typ` is not `at+jwt`): an ID token, for one. */
  | 'type'
  /** No key of the issuer's has that `kid` (after the budgeted refetch, or without it). */
  | 'key_unknown'
  /** The refetch budget for unknown key ids is spent for now. */
  | 'key_budget'
  /** The issuer's keys could not be fetched and none are held. */
  | 'keys_unavailable'
  | 'signature'
  | 'issuer'
  | 'audience'
  | 'expired'
  | 'not_yet_valid'
  /** `client_id` is not on NATIVE_CLIENT_IDS. */
  | 'client'
  /** A required claim (`sub`, `iat`, `exp`, `client_id`) is missing or of the wrong type. */
  | 'claims';

/** What the gateway takes from a verified access token (instants in ms). */
export interface AccessTokenClaims {
  sub: string;
  clientId: string;
  issuedAt: number;
  expiresAt: number;
  /** `auth_time`: when the user last actively authenticated; undefined when the token does not say. */
  authTime: number | undefined;
  amr: string[];
  acr: string | undefined;
  /** The token family: the provider's session or grant id (`sid`), else undefined. */
  sid: string | undefined;
}

export type AccessTokenCheck = { ok: true; claims: AccessTokenClaims } | { ok: false; reason: AccessTokenRefusal };

export interface AccessTokenCheckOptions {
  /** Resolves the verification key from the token's header (the JWKS cache); throws KeyLookupError. */
  keys: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  algorithms: readonly string[];
  clientIds: ReadonlySet<string>;
  now: number;
  /** @default 30 seconds */
  clockToleranceSeconds?: number;
  /** @default 4096 */
  maxBytes?: number;
}

/** The key resolver's refusal, carried through jose to the answer. */
export class KeyLookupError extends Error {
  constructor(readonly reason: 'key_unknown' | 'key_budget' | 'keys_unavailable') {
    super(`access token key: ${reason}`);
    this.name = 'KeyLookupError';
  }
}

/** An RS256 access token with the usual claims is about 1 KiB; 4 KiB leaves room for scopes and names. */
export const MAX_ACCESS_TOKEN_BYTES = 4096;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Checks an access token in the profile of RFC 9068: size, form, algorithm (the allow-list, before
 * any key is looked up), `typ: at+jwt`, the signature against the issuer's keys, `iss`, `aud`,
 * `exp` and `nbf` (with a small clock skew), then `client_id`. Pure but for the key lookup, which
 * is bounded by the cache's budget. The answer is the claims or one typed reason.
 */
export async function checkAccessToken(token: string, options: AccessTokenCheckOptions): Promise<AccessTokenCheck> {
  if (token.length > (options.maxBytes ?? MAX_ACCESS_TOKEN_BYTES)) return { ok: false, reason: 'too_large' };
  if (!COMPACT_JWS.test(token)) return { ok: false, reason: 'malformed' };
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, options.keys, {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: [...options.algorithms],
      typ: 'at+jwt',
      clockTolerance: options.clockToleranceSeconds ?? 30,
      currentDate: new Date(options.now),
      requiredClaims: ['sub', 'iat', 'exp', 'client_id'],
    }));
  } catch (error) {
    return { ok: false, reason: refusalOf(error) };
  }
  const claims = claimsOf(payload);
  if (!claims) return { ok: false, reason: 'claims' };
  // Ending access refuses tokens issued before an instant: a token may not claim a later birth.
  if (claims.issuedAt > options.now + (options.clockToleranceSeconds ?? 30) * 1000)
    return { ok: false, reason: 'not_yet_valid' };
  if (!options.clientIds.has(claims.clientId)) return { ok: false, reason: 'client' };
  return { ok: true, claims };
}

function refusalOf(error: unknown): AccessTokenRefusal {
  if (error instanceof KeyLookupError) return error.reason;
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return 'not_yet_valid';
    if (error.claim === 'iss') return 'issuer';
    if (error.claim === 'aud') return 'audience';
    if (error.claim === 'typ') return 'type';
    return 'claims';
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return 'algorithm';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  return 'malformed';
}

function claimsOf(payload: JWTPayload): AccessTokenClaims | undefined {
  const { sub, iat, exp } = payload;
  const clientId = payload.client_id;
  if (typeof sub !== 'string' || sub === '' || typeof clientId !== 'string') return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  const authTime = payload.auth_time;
  const amr = Array.isArray(payload.amr)
    ? payload.amr.filter((value): value is string => typeof value === 'string')
    : [];
  return {
    sub,
    clientId,
    issuedAt: iat * 1000,
    expiresAt: exp * 1000,
    authTime: typeof authTime === 'number' ? authTime * 1000 : undefined,
    amr,
    acr: typeof payload.acr === 'string' ? payload.acr : undefined,
    sid: typeof payload.sid === 'string' && payload.sid !== '' ? payload.sid : undefined,
  };
}
