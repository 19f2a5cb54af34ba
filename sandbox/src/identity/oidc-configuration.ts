import type Provider from 'oidc-provider';
import { errors, type AdapterPayload, type KoaContextWithOIDC } from 'oidc-provider';
import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { messagePage } from './identity-pages.js';
import type { IdentityUsers } from './identity-users.js';
import { SandboxAdapter, signingJwk, type ModelStore } from './oidc-adapter.js';

export interface ProviderParts {
  issuer: string;
  users: IdentityUsers;
  clock: Clock;
  /** The app's clients as registered now (the web client's redirect URIs grow as gateways register). */
  clients: () => AdapterPayload[];
  /** The public native client: its access tokens are RFC 9068 JWTs for a registered gateway. */
  nativeClientId: string;
  /** Gateways registered as resources (RFC 8707). */
  resources: ReadonlySet<string>;
  /** oidc-provider's models (sessions, interactions, codes, grants…), by model name. */
  modelStore: (name: string) => ModelStore;
}

/**
 * oidc-provider (an ES module graph: koa, jose…) is loaded on the first request, not at start:
 * about a third of an embedded gateway's start otherwise, and a gateway discovers its issuer
 * only when someone signs in.
 */
export async function buildProvider(parts: ProviderParts): Promise<Provider> {
  const { default: OidcProvider } = await import('oidc-provider');
  return new OidcProvider(parts.issuer, {
    adapter: (name: string) => new SandboxAdapter(name, parts.modelStore(name), parts.clients, parts.clock),
    findAccount: async (_ctx: KoaContextWithOIDC, sub: string) => {
      const user = parts.users.bySub(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: user.email, email_verified: true, name: user.name }),
      };
    },
    // amr and auth_time in the ID token: what the app needs to enforce MFA and its freshness.
    claims: {
      sid: null,
      openid: ['sub', 'acr', 'amr', 'auth_time'],
      email: ['email', 'email_verified'],
      profile: ['name'],
    },
    features: { devInteractions: { enabled: false }, resourceIndicators: resourceIndicators(parts) },
    extraTokenClaims,
    interactions: {
      url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    loadExistingGrant,
    pkce: { methods: ['S256'], required: () => true },
    cookies: { keys: [randomToken(32)], names: cookieNames(parts.issuer) },
    jwks: { keys: [signingJwk() as never] },
    ttl: { Session: 3_600, Interaction: 600, Grant: 3_600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    conformIdTokenClaims: false,
    renderError: async (ctx: KoaContextWithOIDC, out: { error?: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.body = messagePage('Sign-in cannot continue', String(out.error_description ?? out.error ?? 'error'), 'error');
    },
  });
}

/**
 * oidc-provider's cookies, named for the issuer's port: cookies ignore ports, and two sandboxes on
 * one host (the quick start's and the example's, both on 127.0.0.1) would otherwise replace each
 * other's session, and a user signed in at one would be asked for their password again at the other.
 */
function cookieNames(issuer: string): { session: string; interaction: string; resume: string } {
  const port = new URL(issuer).port;
  const name = (base: string) => (port ? `${base}_${port}` : base);
  return { session: name('_session'), interaction: name('_interaction'), resume: name('_interaction_resume') };
}

const ACCESS_TOKEN_TTL_SECONDS = 600;

/**
 * The native client's access tokens are for a gateway (RFC 8707 `resource`, or the one gateway
 * registered when the app names none), as RFC 9068 JWTs signed with the provider's key. The web
 * client (the gateway's own sign-in) asks for no resource and keeps its opaque token.
 */
function resourceIndicators(parts: ProviderParts) {
  const onlyGateway = () => (parts.resources.size === 1 ? [...parts.resources][0] : undefined);
  return {
    enabled: true,
    // The types say string, but oidc-provider's own default answers undefined: no resource.
    defaultResource: async (_ctx: KoaContextWithOIDC, client: { clientId: string }, oneOf?: string[]) =>
      (oneOf?.[0] ?? (client.clientId === parts.nativeClientId ? onlyGateway() : undefined)) as string,
    useGrantedResource: async () => true,
    getResourceServerInfo: async (_ctx: KoaContextWithOIDC, resource: string, client: { clientId: string }) => {
      if (client.clientId !== parts.nativeClientId || !parts.resources.has(resource)) throw new errors.InvalidTarget();
      return {
        scope: 'gateway',
        audience: resource,
        accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
        accessTokenFormat: 'jwt' as const,
        jwt: { sign: { alg: 'RS256' as const } },
      };
    },
  };
}

/**
 * What RFC 9068 lets an access token say of the sign-in: `auth_time`, `amr` and `acr` (so the
 * gateway can enforce MFA and its age), and `sid`, the token family: the grant, kept by refreshes
 * and by a step-up of the same sign-in.
 */
async function extraTokenClaims(ctx: KoaContextWithOIDC, token: object) {
  const { grantId } = token as { grantId?: string };
  const entities = ctx.oidc.entities as {
    AuthorizationCode?: { authTime?: number; amr?: string[]; acr?: string };
    RefreshToken?: { authTime?: number; amr?: string[]; acr?: string };
  };
  const source = entities.AuthorizationCode ?? entities.RefreshToken;
  return {
    ...(source?.authTime === undefined ? {} : { auth_time: source.authTime }),
    ...(source?.amr === undefined ? {} : { amr: source.amr }),
    ...(source?.acr === undefined ? {} : { acr: source.acr }),
    ...(grantId === undefined ? {} : { sid: grantId }),
  } as Record<string, unknown>;
}

/** The app is first-party: its scopes are granted without a consent screen. */
async function loadExistingGrant(ctx: KoaContextWithOIDC) {
  const grantId =
    (ctx.oidc.result?.consent as { grantId?: string } | undefined)?.grantId ??
    ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
  if (grantId) return ctx.oidc.provider.Grant.find(grantId);
  const grant = new ctx.oidc.provider.Grant({
    clientId: ctx.oidc.client!.clientId,
    accountId: ctx.oidc.session!.accountId!,
  });
  grant.addOIDCScope('openid email profile offline_access');
  // The gateway's scope, for each gateway the native client asked for (getResourceServerInfo decides which).
  for (const resource of Object.keys(ctx.oidc.resourceServers ?? {})) grant.addResourceScope(resource, 'gateway');
  await grant.save();
  return grant;
}
