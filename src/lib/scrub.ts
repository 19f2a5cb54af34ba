/** Platform credentials by shape: `user_token_…`, `app_token_…`, `genie_token_…` and the like. */
const TOKEN_SHAPED = /\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*_token_[A-Za-z0-9._~+/=-]+/g;
/** HTTP credentials wherever they are quoted: `Bearer <x>`, `Basic <x>`. */
const AUTHORIZATION_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
const REDACTED = '[redacted]';
/** Shorter secrets are not searched for as text: they would match ordinary words. */
const MIN_SECRET_LENGTH = 8;

export const MAX_UPSTREAM_TEXT_LENGTH = 300;

/**
 * Removes credentials from text that came from an upstream (error messages may quote the request
 * that failed) before it reaches a client or a log: every value in `secrets` (the credentials of
 * the request, and those the gateway holds), anything shaped like a platform token, and every
 * Bearer or Basic value; then caps the length.
 */
export function scrubUpstreamText(text: string, secrets: Iterable<string>): string {
  let clean = text;
  for (const secret of secrets) if (secret.length >= MIN_SECRET_LENGTH) clean = clean.replaceAll(secret, REDACTED);
  clean = clean.replace(AUTHORIZATION_VALUE, `$1 ${REDACTED}`).replace(TOKEN_SHAPED, REDACTED);
  return clean.length > MAX_UPSTREAM_TEXT_LENGTH ? `${clean.slice(0, MAX_UPSTREAM_TEXT_LENGTH)}…` : clean;
}

/** The same for every string at the top level of an error body (`message`, `error`, …). */
export function scrubErrorBody(body: unknown, secrets: readonly string[]): unknown {
  if (typeof body === 'string') return scrubUpstreamText(body, secrets);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body))
    clean[key] =
      typeof value === 'string' ? scrubUpstreamText(value, secrets) : typeof value === 'object' ? undefined : value;
  return clean;
}
