import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import type { AdapterPayload } from 'oidc-provider';
import type { Clock } from '@open-finance-gateway/common/clock';
import { listenOn } from '@open-finance-gateway/common/http/listen';
import { sendHtml, sendJson } from '@open-finance-gateway/common/http/respond';
import type { Logger } from '@open-finance-gateway/common/logger';
import { consentPage, messagePage, outboxPage, signupPage } from './identity-pages.js';
import { IdentityUsers } from './identity-users.js';
import type { ModelStore } from './oidc-adapter.js';
import { buildProvider } from './oidc-configuration.js';
import { Outbox } from './outbox.js';
import { formOf, SignInInteraction } from './sign-in-interaction.js';
import { totp } from './totp.js';

export interface SandboxIdentityOptions {
  logger: Logger;
  clock: Clock;
  /** The issuer URL apps and browsers use, when it is not `http://<host>:<port>` (a container's service name). */
  publicIssuer?: string;
  host: string;
  port: number;
  /** Derives the demo users' credentials, so they are the same on every start. */
  seed: string;
  clientId: string;
  clientSecret: string;
  /** The public native client's id (RFC 8252: PKCE, no secret). @default 'nz.sandbox.native' */
  nativeClientId?: string;
  /** The app its clients are: the sign-in pages name it. */
  appName: string;
}

/** Where the sandbox's native client may return to (RFC 8252): a custom scheme, and loopback on any port. */
export const NATIVE_REDIRECT_URIS = [
  'nz.sandbox.native:/oauth2redirect',
  'http://127.0.0.1/callback',
  'http://[::1]/callback',
];

export interface SandboxIdentity {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The public client a native app signs in with: PKCE, no secret, custom-scheme and loopback redirects. */
  readonly nativeClientId: string;
  readonly outbox: Outbox;
  readonly users: IdentityUsers;
  /** Registers a redirect URI of the app (the gateway's OIDC callback). */
  registerRedirectUri(uri: string): void;
  /**
   * Registers a gateway as a resource (RFC 8707): the native client's access tokens name it as
   * their audience, as RFC 9068 JWTs.
   */
  registerResource(uri: string): void;
  /** A user's authenticator code now, by the provider's clock (what its sign-in page shows). */
  currentTotp(email: string): string | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The sandbox's OpenID provider: panva's certified `oidc-provider` on an origin of its own, with
 * the demo app users and every sign-in the accreditation rules allow (password + authenticator
 * code, password + SMS code, PIN + SMS code; password alone for read-only apps). The ID token
 * carries `amr` and `auth_time`, so the app can enforce MFA and its freshness. Codes "sent" by SMS
 * appear on `/outbox`.
 */
export function createSandboxIdentity(options: SandboxIdentityOptions): SandboxIdentity {
  return new SandboxIdentityProvider(options);
}

class SandboxIdentityProvider implements SandboxIdentity {
  readonly users: IdentityUsers;
  readonly outbox = new Outbox();
  readonly clientId: string;
  readonly clientSecret: string;
  readonly nativeClientId: string;
  issuer = '';
  private readonly redirectUris = new Set<string>();
  private readonly resources = new Set<string>();
  private readonly models = new Map<string, ModelStore>();
  private readonly interaction: SignInInteraction;
  private server: Server | undefined;
  private provider: Promise<Provider> | undefined;

  constructor(private readonly options: SandboxIdentityOptions) {
    this.users = new IdentityUsers(options.seed);
    this.clientId = options.clientId;
    this.clientSecret = options.clientSecret;
    this.nativeClientId = options.nativeClientId ?? 'nz.sandbox.native';
    this.interaction = new SignInInteraction(this.users, this.outbox, options.clock, options.appName);
  }

  registerRedirectUri(uri: string): void {
    this.redirectUris.add(uri);
  }

  registerResource(uri: string): void {
    this.resources.add(uri);
  }

  currentTotp(email: string): string | undefined {
    const secret = this.users.byEmail(email)?.totpSecret;
    return secret === undefined ? undefined : totp(secret, this.options.clock());
  }

  async start(): Promise<void> {
    const { host, port, publicIssuer, logger } = this.options;
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        logger.error({ err: error }, 'sandbox identity provider failed');
        if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
        else res.destroy();
      });
    });
    this.server = server;
    await listenOn(server, port, host, 'SANDBOX_IDENTITY_PORT');
    const bound = (server.address() as AddressInfo).port;
    this.issuer = publicIssuer ?? `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  }

  async stop(): Promise<void> {
    this.models.clear();
    const { server } = this;
    if (!server?.listening) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private clients(): AdapterPayload[] {
    return [this.webClient(), this.nativeClient()];
  }

  /** A native app as RFC 8252 registers it: public (no secret), PKCE required (by the provider for every client). */
  private nativeClient(): AdapterPayload {
    return {
      client_id: this.nativeClientId,
      application_type: 'native',
      redirect_uris: NATIVE_REDIRECT_URIS,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      require_auth_time: true,
    };
  }

  private webClient(): AdapterPayload {
    return {
      client_id: this.clientId,
      client_secret: this.clientSecret,
      redirect_uris: [...this.redirectUris],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      require_auth_time: true,
    };
  }

  private modelStore(name: string): ModelStore {
    let store = this.models.get(name);
    if (!store) this.models.set(name, (store = new Map()));
    return store;
  }

  /** The provider, built on the first request (and again after a failed build). */
  private oidc(): Promise<Provider> {
    this.provider ??= buildProvider({
      issuer: this.issuer,
      users: this.users,
      clock: this.options.clock,
      clients: () => this.clients(),
      nativeClientId: this.nativeClientId,
      resources: this.resources,
      modelStore: (name) => this.modelStore(name),
    }).catch((error: unknown) => {
      this.provider = undefined;
      throw error;
    });
    return this.provider;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.issuer) return sendJson(res, 503, { error: 'starting' });
    const provider = await this.oidc();
    const url = new URL(req.url ?? '/', this.issuer);
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'interaction' && parts[1]) return this.interact(provider, req, res, parts[1], parts[2]);
    if (url.pathname === '/outbox') return sendHtml(res, 200, outboxPage(this.outbox.list()));
    if (url.pathname === '/signup' && (req.method === 'GET' || req.method === 'POST')) return this.signUp(req, res);
    if (url.pathname === '/account/password' && req.method === 'POST') return this.changeSecret(req, res);
    void provider.callback()(req, res);
  }

  /** The sign-in pages of one interaction (`/interaction/:uid[/login|/verify]`). */
  private async interact(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string, step?: string) {
    const details = await provider.interactionDetails(req, res).catch(() => undefined);
    if (!details || details.uid !== uid)
      return sendHtml(res, 400, messagePage('Sign-in expired', 'Start signing in again from the app.', 'error'));
    if (details.prompt.name === 'consent') return this.consent(provider, req, res, details, step);
    if (req.method === 'POST' && step === 'login') return this.interaction.login(provider, req, res, uid);
    if (req.method === 'POST' && step === 'verify') return this.interaction.verify(provider, req, res, uid);
    this.interaction.show(res, uid, step === 'verify');
  }

  /** The native client's consent step: shown, then the grant (scopes and the gateway resource) or a refusal. */
  private async consent(
    provider: Provider,
    req: IncomingMessage,
    res: ServerResponse,
    details: Awaited<ReturnType<Provider['interactionDetails']>>,
    step: string | undefined,
  ): Promise<void> {
    const clientId = String(details.params.client_id);
    if (req.method !== 'POST' || step !== 'consent')
      return sendHtml(
        res,
        200,
        consentPage(details.uid, {
          name: this.options.appName,
          clientId,
          redirectUri: String(details.params.redirect_uri),
        }),
      );
    if ((await formOf(req)).get('decision') !== 'allow') {
      const refusal = { error: 'access_denied', error_description: 'The user did not allow the app.' };
      return provider.interactionFinished(req, res, refusal, { mergeWithLastSubmission: false });
    }
    const missing = details.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId: details.session!.accountId, clientId });
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  private async signUp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return sendHtml(res, 200, signupPage());
    const form = await formOf(req);
    const created = this.users.signUp({
      email: form.get('email') ?? '',
      name: form.get('name') ?? '',
      password: form.get('password') ?? '',
      phone: form.get('phone') ?? '',
    });
    if (typeof created === 'string') return sendHtml(res, 400, signupPage(created));
    sendHtml(res, 200, signupPage(undefined, `Account created for ${created.email}: sign in from the app.`));
  }

  private async changeSecret(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await formOf(req);
    const user = this.users.byEmail(form.get('email') ?? '');
    const problem = user
      ? this.users.changeSecret(user, form.get('current') ?? '', form.get('next') ?? '')
      : 'The current password or PIN is wrong';
    sendJson(res, problem ? 400 : 200, problem ? { error: problem } : { changed: true });
  }
}
