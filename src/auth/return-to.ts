export const DEFAULT_RETURN_TO = '/graphql';

/** C0 controls, DEL and backslashes: browsers strip or reinterpret them, so none is allowed anywhere. */
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

/**
 * Where to send the browser after sign-in: `returnTo` only when it is a same-site path, otherwise
 * `/graphql`. The value must carry no control character or backslash in any percent-decoded
 * layer (so a later decoder cannot produce one), and resolving it against the public origin with
 * the WHATWG parser (what browsers use) must keep that origin and not yield a `//` path. What is
 * returned is the parser's serialisation, so the Location header is plain ASCII.
 */
export function safeReturnTo(value: string | null, publicOrigin: string): string {
  if (!value || value.length > MAX_RETURN_TO_LENGTH) return DEFAULT_RETURN_TO;
  let layer = value;
  for (let depth = 0; ; depth += 1) {
    if (!isSafeLayer(layer)) return DEFAULT_RETURN_TO;
    let decoded: string;
    try {
      decoded = decodeURIComponent(layer);
    } catch {
      break; // a stray `%` is not an encoding layer; what was checked so far stands
    }
    if (decoded === layer) break;
    if (depth === MAX_DECODING_LAYERS) return DEFAULT_RETURN_TO;
    layer = decoded;
  }
  let resolved: URL;
  try {
    resolved = new URL(value, publicOrigin);
  } catch {
    return DEFAULT_RETURN_TO;
  }
  if (resolved.origin !== publicOrigin || resolved.pathname.startsWith('//')) return DEFAULT_RETURN_TO;
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}
