import { describe, expect, it } from 'vitest';
import { gatewayCookieNames } from '../../src/auth/cookie-names.js';

describe("the gateway's cookie names", () => {
  it('carry the port on plain http, where cookies of two gateways on one host would otherwise be one', () => {
    expect(gatewayCookieNames('http://localhost:4000')).toEqual({
      session: 'gw_session_4000',
      oauthBinding: 'gw_oauth_4000',
    });
    expect(gatewayCookieNames('http://localhost:4100').session).toBe('gw_session_4100');
    // The scheme's own port is not in the URL: the plain names, as before.
    expect(gatewayCookieNames('http://gateway.internal').session).toBe('gw_session');
  });

  it('keep the __Host- prefix and no port over https, whatever the port', () => {
    expect(gatewayCookieNames('https://gateway.example.nz')).toEqual({
      session: '__Host-gw_session',
      oauthBinding: '__Host-gw_oauth',
    });
    expect(gatewayCookieNames('https://gateway.example.nz:8443').session).toBe('__Host-gw_session');
  });
});
