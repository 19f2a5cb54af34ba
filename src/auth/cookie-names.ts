/** The cookies the gateway sets: the session, and the browser binding of a sign-in or bank connection in flight. */
export interface GatewayCookieNames {
  session: string;
  oauthBinding: string;
}

let last: { publicUrl: string; names: GatewayCookieNames } | undefined;

/**
 * The cookies' names for the gateway at `publicUrl`. Cookies ignore ports (RFC 6265 §8.5): two
 * gateways on one host, such as the quick start on `localhost:4000` and the example's on
 * `localhost:4100`, would share one `gw_session`, and signing in to or out of one would end the
 * browser's session at the other. So on plain http a port in the public URL goes into every name
 * (`gw_session_4000`). Over https the names keep the `__Host-` prefix (host-only, Secure, Path=/)
 * and no port: one gateway per host name is how it runs in production, and its users keep their
 * cookie through an upgrade.
 */
export function gatewayCookieNames(publicUrl: string): GatewayCookieNames {
  if (last?.publicUrl === publicUrl) return last.names;
  const url = new URL(publicUrl);
  const name =
    url.protocol === 'https:'
      ? (base: string) => `__Host-${base}`
      : (base: string) => `${base}${url.port && `_${url.port}`}`;
  const names = { session: name('gw_session'), oauthBinding: name('gw_oauth') };
  last = { publicUrl, names };
  return names;
}

/**
 * The names the previous version gave the same cookies, where they differ from this version's (on
 * plain http with a port): `gw_session` and `gw_oauth`. While versions mix in a rolling deploy,
 * this version sets each cookie under both names and reads its own name first, then the previous
 * one, so a browser signed in on either version is signed in on the other. The next version sets
 * and reads its own names alone (docs/operations/several-instances.md, "How versions roll").
 */
function previousCookieNames(publicUrl: string): GatewayCookieNames | undefined {
  const current = gatewayCookieNames(publicUrl);
  return current.session === 'gw_session' || current.session.startsWith('__Host-')
    ? undefined
    : { session: 'gw_session', oauthBinding: 'gw_oauth' };
}

/** A cookie's values under this version's name, then the previous version's (see previousCookieNames). */
export function cookieValuesOf(
  cookies: Record<string, string | undefined>,
  publicUrl: string,
  which: keyof GatewayCookieNames,
): string[] {
  return cookieNamesToSet(publicUrl, which)
    .map((name) => cookies[name])
    .filter((value): value is string => value !== undefined && value !== '');
}

/** A cookie's value under this version's name, else under the previous version's (see previousCookieNames). */
export function cookieValueOf(
  cookies: Record<string, string | undefined>,
  publicUrl: string,
  which: keyof GatewayCookieNames,
): string | undefined {
  return cookies[gatewayCookieNames(publicUrl)[which]] ?? cookies[previousCookieNames(publicUrl)?.[which] ?? ''];
}

/** Every name a cookie is set and cleared under: this version's, and the previous version's where it differs. */
export function cookieNamesToSet(publicUrl: string, which: keyof GatewayCookieNames): string[] {
  const previous = previousCookieNames(publicUrl)?.[which];
  return previous ? [gatewayCookieNames(publicUrl)[which], previous] : [gatewayCookieNames(publicUrl)[which]];
}
