import type Provider from 'oidc-provider';
import type { AdapterPayload, KoaContextWithOIDC } from 'oidc-provider';
import type { Clock } from '@open-finance-gateway/common/clock';
import { randomToken } from '@open-finance-gateway/common/ids';
import { messagePage } from './identity-pages.js';
import type { IdentityUsers } from './identity-users.js';
import { SandboxAdapter, signingJwk, type ModelStore } from './oidc-adapter.js';

export interface ProviderParts {
  issuer: string;
  users: IdentityUsers;
  clock: Clock;
  /** The app client as registered now (its redirect URIs grow as gateways register). */
  client: () => AdapterPayload;
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
    adapter: (name: string) => new SandboxAdapter(name, parts.modelStore(name), parts.client, parts.clock),
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
    features: { devInteractions: { enabled: false } },
    interactions: {
      url: (_ctx: KoaContextWithOIDC, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    loadExistingGrant,
    pkce: { methods: ['S256'], required: () => true },
    cookies: { keys: [randomToken(32)] },
    jwks: { keys: [signingJwk() as never] },
    ttl: { Session: 3_600, Interaction: 600, Grant: 3_600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    conformIdTokenClaims: false,
    renderError: async (ctx: KoaContextWithOIDC, out: { error?: string; error_description?: string }) => {
      ctx.type = 'html';
      ctx.body = messagePage('Sign-in cannot continue', String(out.error_description ?? out.error ?? 'error'), 'error');
    },
  });
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
  grant.addOIDCScope('openid email profile');
  await grant.save();
  return grant;
}
