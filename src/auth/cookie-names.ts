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
