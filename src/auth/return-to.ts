export const DEFAULT_RETURN_TO = '/graphql';

/** C0 controls, DEL and backslashes: browsers strip or reinterpret them, so none is allowed anywhere. */
// Control characters are what this looks for: a return path must not smuggle them in.
// oxlint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f\\]/;
const MAX_RETURN_TO_LENGTH = 2048;
/** Each layer of percent-encoding is checked; more layers than this is not a path anyone writes. */
const MAX_DECODING_LAYERS = 3;

function isSafeLayer(text: string): boolean {
  // NFKC too: some routers and proxies fold full-width solidus and reverse solidus into / and \.
  return [text, text.normalize('NFKC')].every(
    (form) => !UNSAFE_CHARACTERS.test(form) && form.startsWith('/') && !form.startsWith('//'),
  );
}

/** Whether every percent-decoded layer of `path` is a same-site path. */
function layersAreSafe(path: string): boolean {
  let layer = path;
  for (let depth = 0; ; depth += 1) {
    if (!isSafeLayer(layer)) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(layer);
    } catch {
      return true; // a stray `%` is not an encoding layer; what was checked so far stands
    }
    if (decoded === layer) return true;
    if (depth === MAX_DECODING_LAYERS) return false;
    layer = decoded;
  }
}

/**
 * An absolute `returnTo` names its origin exactly as the allowed list spells it (scheme, host,
 * port, then `/` or nothing): no userinfo (`https://app@evil`), no scheme-relative or
 * backslashed forms, no default port written out, no case or IDNA folding left to the parser.
 */
function absoluteOrigin(value: string, allowedOrigins: Iterable<string>): string | undefined {
  for (const origin of allowedOrigins) {
    if (value === origin || value.startsWith(`${origin}/`)) return origin;
  }
  return undefined;
}

/**
 * Where to send the browser after sign-in: `returnTo` when it is a same-site path, or an
 * absolute URL on one of `allowedOrigins` (a frontend on another origin, from ALLOWED_ORIGINS);
 * otherwise `/graphql`. The value must carry no control character or backslash in any
 * percent-decoded layer (so a later decoder cannot produce one), and resolving it with the WHATWG
 * parser (what browsers use) must land on the expected origin with no `//` path and no userinfo.
 * What is returned is the parser's serialisation, so the Location header is plain ASCII: a path
 * for the gateway's own origin, the whole URL for another allowed one.
 */
export function safeReturnTo(
  value: string | null,
  publicOrigin: string,
  allowedOrigins: Iterable<string> = [],
): string {
  if (!value || value.length > MAX_RETURN_TO_LENGTH) return DEFAULT_RETURN_TO;
  const expected = value.startsWith('/') ? publicOrigin : absoluteOrigin(value, [publicOrigin, ...allowedOrigins]);
  if (expected === undefined) return DEFAULT_RETURN_TO;
  // What follows an absolute URL's origin is held to the same rules as a same-site path.
  const path = value.startsWith('/') ? value : value.slice(expected.length) || '/';
  if (!layersAreSafe(path)) return DEFAULT_RETURN_TO;
  let resolved: URL;
  try {
    resolved = new URL(value, publicOrigin);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (
    resolved.origin !== expected ||
    resolved.username !== '' ||
    resolved.password !== '' ||
    !['http:', 'https:'].includes(resolved.protocol) ||
    resolved.pathname.startsWith('//')
  )
    return DEFAULT_RETURN_TO;
  return expected === publicOrigin ? `${resolved.pathname}${resolved.search}${resolved.hash}` : resolved.href;
}
