import { int, list, setting, text, type Fail, type SettingGroup } from '../setting-types.js';

/** Asymmetric JWS algorithms only: `none` and the HMAC family (HS*) would let a public key sign. */
export const ACCESS_TOKEN_ALGORITHM_CHOICES = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

function parseAlgorithms(values: string[], fail: Fail): string[] | undefined {
  const unknown = values.filter((value) => !(ACCESS_TOKEN_ALGORITHM_CHOICES as readonly string[]).includes(value));
  if (values.length === 0 || unknown.length > 0) {
    fail(`must be a comma-separated list of asymmetric JWS algorithms (${ACCESS_TOKEN_ALGORITHM_CHOICES.join(', ')})`);
    return undefined;
  }
  return values;
}

function parseClientIds(values: string[], fail: Fail): string[] | undefined {
  if (values.some((value) => !/^[\x21-\x7E]{1,200}$/.test(value))) {
    fail('must be a comma-separated list of client ids (printable, no spaces)');
    return undefined;
  }
  return values;
}

export const ACCESS_TOKEN_SETTINGS = {
  title: 'Access tokens (native apps)',
  settings: [
    setting({
      name: 'NATIVE_CLIENT_IDS',
      type: list('comma-separated client ids registered at `OIDC_ISSUER`', parseClientIds),
      defaultText: "none: bearer tokens are refused (the sandbox's native client on the embedded identity provider)",
      usedBy: 'access tokens ([native apps](../guides/native-apps.md))',
      description:
        "The identity provider's clients whose access tokens the gateway accepts in `Authorization: Bearer` (the token's `client_id`): the app's native (public, PKCE) clients. Browsers keep the session cookie.",
      example: 'nz.example.app.ios,nz.example.app.android',
      envNote: "clients whose access tokens are accepted; default: none (the sandbox's native client on the sandbox)",
    }),
    setting({
      name: 'ACCESS_TOKEN_AUDIENCE',
      type: text({
        pattern: /^[a-z][a-z0-9+.-]*:[^\s#]+$/i,
        problem: 'must be an absolute URI without a fragment (RFC 8707 resource indicator)',
      }),
      defaultText: 'the public URL (`PUBLIC_URL`, or the URL the gateway listens on)',
      bounds: 'an absolute URI without a fragment',
      usedBy: 'access tokens',
      description:
        "The gateway's resource identifier: an access token's `aud` must contain it. Apps ask the identity provider for it with `resource` (RFC 8707) or the provider's API identifier (Auth0's `audience`).",
      example: 'https://gateway.example.co.nz',
    }),
    setting({
      name: 'ACCESS_TOKEN_ALGORITHMS',
      type: list('comma-separated asymmetric JWS algorithms (never `none` or HS*)', parseAlgorithms),
      default: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      usedBy: 'access tokens',
      description:
        'The signature algorithms an access token may use. A token with any other `alg` is refused before its key is looked up.',
    }),
    setting({
      name: 'ACCESS_TOKEN_KEY_FETCHES_PER_MINUTE',
      type: int(1, 600),
      default: 10,
      usedBy: 'access tokens',
      description:
        "Fetches of the identity provider's JWKS for a key id the gateway does not hold, per minute: a flood of tokens naming made-up key ids costs at most this many calls. The keys are fetched again every 10 minutes regardless; a failed fetch keeps the keys already held.",
    }),
  ],
} as const satisfies SettingGroup;
