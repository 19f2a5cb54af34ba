import { createHash, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import type { Adapter, AdapterPayload, KoaContextWithOIDC } from 'oidc-provider';
import type { Clock } from '@open-finance-gateway/common/clock';
import { readRawBody } from '@open-finance-gateway/common/http/read-body';
import { redirect, sendHtml, sendJson } from '@open-finance-gateway/common/http/respond';
import { randomToken } from '@open-finance-gateway/common/ids';
import { loadRsaKey } from '../lib/key-file.js';
import type { Logger } from '@open-finance-gateway/common/logger';
import { AttemptLimiter } from './attempt-limiter.js';
import { IdentityUsers, secretMatches, type IdentityUser } from './identity-users.js';
import { loginPage, messagePage, outboxPage, secondFactorPage, signupPage } from './identity-pages.js';
import { Outbox } from './outbox.js';
import { totp, verifyTotp } from './totp.js';

/** Authentication method references (RFC 8176) for each way of signing in. */
const AMR: Record<IdentityUser['method'], string[]> = {
  'password+totp': ['pwd', 'otp', 'mfa'],
  'password+sms': ['pwd', 'sms', 'mfa'],
  'pin+sms': ['pin', 'sms', 'mfa'],
  password: ['pwd'],
};
const SMS_CODE_TTL_MS = 5 * 60_000;
const SMS_CODE_ATTEMPTS = 5;

/** A first factor passed within one interaction, waiting for the second. */
interface PendingSecondFactor {
  user: IdentityUser;
  factor: 'otp' | 'sms';
  smsCode?: string;
  smsExpiresAt?: number;
  attemptsLeft: number;
}

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
}

export interface SandboxIdentity {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly outbox: Outbox;
  readonly users: IdentityUsers;
  /** Registers a redirect URI of the app (the gateway's OIDC callback). */
  registerRedirectUri(uri: string): void;
  /** A user's authenticator code now, by the provider's clock (what its sign-in page shows). */
  currentTotp(email: string): string | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

type ModelStore = Map<string, { payload: AdapterPayload; expiresAt?: number }>;

/** Storage for oidc-provider's models, in memory; the app client comes from the registered redirect URIs. */
class SandboxAdapter implements Adapter {
  constructor(
    private readonly name: string,
    /** This model's entries, owned by one provider (and gone with it). */
    private readonly store: ModelStore,
    private readonly client: () => AdapterPayload,
    private readonly clock: Clock,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    this.store.set(id, { payload, expiresAt: expiresIn ? this.clock() + expiresIn * 1000 : undefined });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (this.name === 'Client') return id === this.client().client_id ? this.client() : undefined;
    const entry = this.store.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= this.clock()) {
      this.store.delete(id);
      return undefined;
    }
    return entry.payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    for (const [id, entry] of this.store) if (entry.payload.uid === uid) return this.find(id);
    return undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    for (const [id, entry] of this.store) if (entry.payload.userCode === userCode) return this.find(id);
    return undefined;
  }

  async consume(id: string): Promise<void> {
    const entry = this.store.get(id);
    if (entry) entry.payload.consumed = Math.floor(this.clock() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.store.delete(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [id, entry] of this.store) if (entry.payload.grantId === grantId) this.store.delete(id);
  }
}

/** The ID-token signing key, read once per process (see loadRsaKey); its id names the key. */
let cachedJwk: Record<string, unknown> | undefined;
function signingJwk(): Record<string, unknown> {
  if (!cachedJwk) {
    const jwk = loadRsaKey('identity-signing-key').export({ format: 'jwk' });
    const kid = createHash('sha256').update(String(jwk.n)).digest('base64url').slice(0, 11);
    cachedJwk = { ...jwk, kid, use: 'sig', alg: 'RS256' };
  }
  return cachedJwk;
}

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await readRawBody(req, 64 * 1024)).toString('utf8'));
}

/**
 * The sandbox's OpenID provider: panva's certified `oidc-provider` on an origin of its own, with
 * the demo app users and every sign-in the accreditation rules allow (password + authenticator
 * code, password + SMS code, PIN + SMS code; password alone for read-only apps). The ID token
 * carries `amr` and `auth_time`, so the app can enforce MFA and its freshness. Codes "sent" by SMS
 * appear on `/outbox`.
 */
export function createSandboxIdentity(options: SandboxIdentityOptions): SandboxIdentity {
  const users = new IdentityUsers(options.seed);
  const outbox = new Outbox();
  const redirectUris = new Set<string>();
  const pending = new Map<string, PendingSecondFactor>();
  const pinLimiter = new AttemptLimiter(options.clock);
  const passwordLimiter = new AttemptLimiter(options.clock, { perMinute: 10, lockAfter: 20, lockMs: 15 * 60_000 });
  /** oidc-provider's models (sessions, interactions, codes, grants…), by model name. */
  const models = new Map<string, ModelStore>();
  const modelStore = (name: string): ModelStore => {
    let store = models.get(name);
    if (!store) models.set(name, (store = new Map()));
    return store;
  };
  let server: Server | undefined;
  let issuer = '';
  let provider: Promise<Provider> | undefined;

  const client = (): AdapterPayload => ({
    client_id: options.clientId,
    client_secret: options.clientSecret,
    redirect_uris: [...redirectUris],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    require_auth_time: true,
  });

  /**
   * oidc-provider (an ES module graph: koa, jose…) is loaded on the first request, not at start:
   * about a third of an embedded gateway's start otherwise, and a gateway discovers its issuer
   * only when someone signs in.
   */
  async function buildProvider(): Promise<Provider> {
    const { default: OidcProvider } = await import('oidc-provider');
    const jwk = signingJwk();
    const created = new OidcProvider(issuer, {
      adapter: (name: string) => new SandboxAdapter(name, modelStore(name), client, options.clock),
      findAccount: async (_ctx: KoaContextWithOIDC, sub: string) => {
        const user = users.bySub(sub);
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
      // The app is first-party: its scopes are granted without a consent screen.
      loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
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
      },
      pkce: { methods: ['S256'], required: () => true },
      cookies: { keys: [randomToken(32)] },
      jwks: { keys: [jwk as never] },
      ttl: { Session: 3_600, Interaction: 600, Grant: 3_600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
      conformIdTokenClaims: false,
      renderError: async (ctx: KoaContextWithOIDC, out: { error?: string; error_description?: string }) => {
        ctx.type = 'html';
        ctx.body = messagePage(
          'Sign-in cannot continue',
          String(out.error_description ?? out.error ?? 'error'),
          'error',
        );
      },
    });
    return created;
  }

  function demoRows() {
    return users.demoUsers().map((user) => ({
      user,
      totp: user.totpSecret ? totp(user.totpSecret, options.clock()) : undefined,
    }));
  }

  async function finish(req: IncomingMessage, res: ServerResponse, user: IdentityUser): Promise<void> {
    await (
      await provider!
    ).interactionFinished(
      req,
      res,
      {
        login: { accountId: user.sub, amr: AMR[user.method], remember: false, ts: Math.floor(options.clock() / 1000) },
      },
      { mergeWithLastSubmission: false },
    );
  }

  function sendSmsCode(entry: PendingSecondFactor): void {
    entry.smsCode = String(randomInt(0, 1_000_000)).padStart(6, '0');
    entry.smsExpiresAt = options.clock() + SMS_CODE_TTL_MS;
    outbox.send({
      channel: 'sms',
      to: entry.user.phone!,
      text: `Your sandbox sign-in code is ${entry.smsCode}. It expires in 5 minutes.`,
      code: entry.smsCode,
      at: new Date(options.clock()).toISOString(),
    });
  }

  async function login(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const form = await formOf(req);
    const user = users.byEmail(form.get('email') ?? '');
    const secret = form.get('secret') ?? '';
    const address = req.socket.remoteAddress ?? 'unknown';
    const limiter = user?.method === 'pin+sms' ? pinLimiter : passwordLimiter;
    const admitted = limiter.admit(user?.sub ?? `unknown:${form.get('email')}`, address);
    if (!admitted.ok) {
      const wait = Math.ceil(admitted.retryAfterMs / 1000);
      return sendHtml(
        res,
        429,
        loginPage(
          uid,
          demoRows(),
          admitted.reason === 'locked'
            ? `Too many wrong attempts: this account is locked for ${Math.ceil(wait / 60)} minutes.`
            : `Too many attempts: try again in ${wait} seconds.`,
        ),
        { 'retry-after': String(wait) },
      );
    }
    if (!user || !secretMatches(user, secret)) {
      if (user) limiter.failed(user.sub);
      return sendHtml(res, 401, loginPage(uid, demoRows(), 'Wrong e-mail, password or PIN.'));
    }
    limiter.succeeded(user.sub, address);
    if (user.method === 'password') return finish(req, res, user);
    const entry: PendingSecondFactor = {
      user,
      factor: user.method === 'password+totp' ? 'otp' : 'sms',
      attemptsLeft: SMS_CODE_ATTEMPTS,
    };
    if (entry.factor === 'sms') sendSmsCode(entry);
    pending.set(uid, entry);
    redirect(res, `/interaction/${uid}/verify`, {}, 303);
  }

  function hintFor(entry: PendingSecondFactor): string {
    return entry.factor === 'otp'
      ? 'Enter the code your authenticator app shows (the sign-in page lists the demo user\u2019s current code).'
      : `We sent a code to ${entry.user.phone!.replace(/\d(?=[\d ]{4})/g, '•')} (see the sandbox outbox).`;
  }

  async function verify(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const entry = pending.get(uid);
    if (!entry) return redirect(res, `/interaction/${uid}`, {}, 303);
    const code = ((await formOf(req)).get('code') ?? '').trim();
    const now = options.clock();
    const valid =
      entry.factor === 'otp'
        ? verifyTotp(entry.user.totpSecret!, code, now)
        : entry.smsCode === code && (entry.smsExpiresAt ?? 0) > now;
    if (!valid) {
      entry.attemptsLeft -= 1;
      if (entry.attemptsLeft <= 0) {
        pending.delete(uid);
        return sendHtml(
          res,
          401,
          messagePage('Sign-in stopped', 'Too many wrong codes. Start signing in again.', 'error'),
        );
      }
      return sendHtml(res, 401, secondFactorPage(uid, entry.factor, hintFor(entry), 'That code is not right.'));
    }
    pending.delete(uid);
    await finish(req, res, entry.user);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!issuer) return sendJson(res, 503, { error: 'starting' });
    provider ??= buildProvider().catch((error: unknown) => {
      provider = undefined;
      throw error;
    });
    const oidc = await provider;
    const url = new URL(req.url ?? '/', issuer);
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'interaction' && parts[1]) {
      const uid = parts[1];
      const details = await oidc.interactionDetails(req, res).catch(() => undefined);
      if (!details || details.uid !== uid)
        return sendHtml(res, 400, messagePage('Sign-in expired', 'Start signing in again from the app.', 'error'));
      if (req.method === 'POST' && parts[2] === 'login') return login(req, res, uid);
      if (req.method === 'POST' && parts[2] === 'verify') return verify(req, res, uid);
      const entry = pending.get(uid);
      if (parts[2] === 'verify' && entry)
        return sendHtml(res, 200, secondFactorPage(uid, entry.factor, hintFor(entry)));
      return sendHtml(res, 200, loginPage(uid, demoRows()));
    }
    if (url.pathname === '/outbox') return sendHtml(res, 200, outboxPage(outbox.list()));
    if (url.pathname === '/signup' && req.method === 'GET') return sendHtml(res, 200, signupPage());
    if (url.pathname === '/signup' && req.method === 'POST') {
      const form = await formOf(req);
      const created = users.signUp({
        email: form.get('email') ?? '',
        name: form.get('name') ?? '',
        password: form.get('password') ?? '',
        phone: form.get('phone') ?? '',
      });
      if (typeof created === 'string') return sendHtml(res, 400, signupPage(created));
      return sendHtml(res, 200, signupPage(undefined, `Account created for ${created.email}: sign in from the app.`));
    }
    if (url.pathname === '/account/password' && req.method === 'POST') {
      const form = await formOf(req);
      const user = users.byEmail(form.get('email') ?? '');
      const problem = user
        ? users.changeSecret(user, form.get('current') ?? '', form.get('next') ?? '')
        : 'The current password or PIN is wrong';
      return sendJson(res, problem ? 400 : 200, problem ? { error: problem } : { changed: true });
    }
    void oidc.callback()(req, res);
  }

  const identity: SandboxIdentity = {
    get issuer() {
      return issuer;
    },
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    outbox,
    users,
    registerRedirectUri(uri) {
      redirectUris.add(uri);
    },
    currentTotp(email) {
      const secret = users.byEmail(email)?.totpSecret;
      return secret === undefined ? undefined : totp(secret, options.clock());
    },
    async start() {
      server = createServer((req, res) => {
        handle(req, res).catch((error: unknown) => {
          options.logger.error({ err: error }, 'sandbox identity provider failed');
          if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
          else res.destroy();
        });
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(options.port, options.host, () => resolve());
      });
      const { port } = server.address() as AddressInfo;
      issuer =
        options.publicIssuer ?? `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
    },
    async stop() {
      models.clear();
      if (!server?.listening) return;
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        server!.closeAllConnections();
      });
    },
  };
  return identity;
}
