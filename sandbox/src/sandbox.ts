import { setMaxListeners } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '@open-finance-gateway/common/clock';
import { listenOn } from '@open-finance-gateway/common/http/listen';
import { Router } from '@open-finance-gateway/common/http/router';
import { randomToken } from '@open-finance-gateway/common/ids';
import { buildCategories } from './data/categories.js';
import { buildConnections } from './data/connections.js';
import { addLoadTestUsers, buildDemoWorld } from './data/demo-world.js';
import { sandboxId } from './data/sandbox-ids.js';
import { createMerchantMatcher } from './enrichment/merchant-matcher.js';
import { registerSearchRoutes } from './enrichment/search-routes.js';
import { createSandboxIdentity } from './identity/identity-provider.js';
import { base32Encode } from './identity/totp.js';
import { registerLogoRoutes } from './logos/logo-routes.js';
import type { SandboxConnection } from './model/core-model.js';
import { LOAD_USER_PASSWORD, type Sandbox, type SandboxOptions } from './sandbox-api.js';
import { createSandboxServer, type SandboxRequest } from './sandbox-http.js';
import { registerCoreRoutes } from './sandbox-routes.js';
import { SandboxState, type RecordedRequest, type SandboxCredentials } from './sandbox-state.js';
import { DEFAULT_APP_NAME } from './standalone-settings.js';
import { DeliveryEngine } from './webhooks/delivery-engine.js';
import { PaymentControls } from './webhooks/payment-controls.js';
import { SigningKeys } from './webhooks/signing-keys.js';
import type { WebhookSubscription } from './webhooks/subscription-routes.js';
import { WorldChanges } from './webhooks/world-changes.js';

export { LOAD_USER_PASSWORD, type Sandbox, type SandboxOptions };

/**
 * A faithful local implementation of the platform's HTTP contract: two origins (core and
 * enrichment), the platform's auth modes, envelopes and errors. The gateway talks to it over HTTP
 * exactly as it talks to the live platform.
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  return new PlatformSandbox(options);
}

/** The app's credentials at the platform: given, or made up for this sandbox. */
function credentialsOf(options: SandboxOptions): SandboxCredentials {
  return {
    appToken: options.credentials?.appToken ?? `app_token_${randomToken(18)}`,
    appSecret: options.credentials?.appSecret ?? randomToken(32),
    enrichmentKey: options.credentials?.enrichmentKey ?? `genie_token_${randomToken(24)}`,
  };
}

/**
 * Listens on `port` (0: any free one) and answers the origin it serves. A port in use is named with
 * the standalone setting that moves it (`npm run sandbox`, `npm run dev`; embedded, every port is 0).
 */
async function listenAt(server: Server, port: number, host: string, setting: string): Promise<string> {
  await listenOn(server, port, host, setting);
  const address = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

function closeServer(server: Server | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server?.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

class PlatformSandbox implements Sandbox {
  readonly credentials: SandboxCredentials;
  readonly signingKeys = new SigningKeys();
  readonly deliveries: DeliveryEngine;
  readonly payments: PaymentControls;
  readonly changes: WorldChanges;
  readonly identity: ReturnType<typeof createSandboxIdentity>;
  coreUrl = '';
  enrichmentUrl = '';
  private readonly state: SandboxState;
  private readonly subscriptions: WebhookSubscription[] = [];
  private readonly identitySeed: string;
  private readonly appName: string;
  private readonly host: string;
  private webhookUrl: string | undefined;
  private readonly stopping = new AbortController();
  private readonly servers: Server[] = [];
  private closeConsole: () => void = () => undefined;

  constructor(private readonly options: SandboxOptions) {
    this.appName = options.appName?.trim() || DEFAULT_APP_NAME;
    this.credentials = credentialsOf(options);
    this.state = new SandboxState(this.credentials, options.clock ?? systemClock);
    this.state.recordRequests = options.recordRequests ?? false;
    for (const uri of options.redirectUris ?? []) this.state.redirectUris.add(uri);
    this.host = options.host ?? '127.0.0.1';
    this.webhookUrl = options.webhookUrl;
    // Every request held by a delay fault listens for the stop, so more than ten at once is normal.
    setMaxListeners(0, this.stopping.signal);
    this.deliveries = new DeliveryEngine({
      keys: this.signingKeys,
      headerPrefix: options.headerPrefix,
      subscriptions: this.subscriptions,
      clock: this.state.clock,
      logger: options.logger,
      url: () => this.webhookUrl,
      timeScale: options.webhookTimeScale,
    });
    this.payments = new PaymentControls(this.state, this.deliveries, options.paymentSettleMs);
    this.changes = new WorldChanges(this.state, this.deliveries, this.subscriptions);
    this.identitySeed = options.identitySeed ?? randomToken(16);
    this.identity = createSandboxIdentity({
      logger: options.logger,
      clock: this.state.clock,
      host: this.host,
      port: options.identityPort ?? 0,
      publicIssuer: options.identityIssuer,
      seed: this.identitySeed,
      clientId: 'open-finance-gateway',
      clientSecret: sandboxId('oidc_secret', this.identitySeed),
      appName: this.appName,
    });
  }

  get authorizeUrl(): string {
    return `${this.coreUrl}/oauth/authorize`;
  }

  get consoleUrl(): string {
    return `${this.coreUrl}/console`;
  }

  /** Enrichment first (its origin serves the merchant logos the demo world names), then the core API, then the identity provider. */
  async start(): Promise<void> {
    const enrichment = new Router<SandboxRequest>();
    this.enrichmentUrl = await this.serve('enrichment', enrichment, this.options.enrichmentPort);
    const categories = buildCategories();
    const connections = buildConnections(this.enrichmentUrl);
    this.seedWorld(connections);
    const matcher = createMerchantMatcher(categories, this.enrichmentUrl, new Set(connections.map((c) => c._id)));
    registerSearchRoutes(enrichment, this.state, matcher);
    registerLogoRoutes(enrichment, connections);

    const core = new Router<SandboxRequest>();
    this.closeConsole = registerCoreRoutes(core, {
      state: this.state,
      sandbox: this,
      connections,
      categories,
      subscriptions: this.subscriptions,
      webhookUrl: () => this.webhookUrl,
      codeTtlMs: this.options.codeTtlMs ?? 60_000,
      appName: this.appName,
    });
    this.coreUrl = await this.serve('core', core, this.options.corePort);
    await this.identity.start();
    this.options.logger.info(
      { coreUrl: this.coreUrl, enrichmentUrl: this.enrichmentUrl, identityIssuer: this.identity.issuer },
      'platform sandbox listening',
    );
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.deliveries.stop();
    this.payments.stop();
    this.closeConsole();
    await this.identity.stop();
    await Promise.all(this.servers.map(closeServer));
  }

  registerRedirectUri(uri: string): void {
    this.state.redirectUris.add(uri);
  }

  setEnrichmentFault(fault: Parameters<Sandbox['setEnrichmentFault']>[0]): void {
    this.state.enrichmentFault = { ...fault };
  }

  setCoreFault(fault: Parameters<Sandbox['setCoreFault']>[0]): void {
    this.state.coreFault = { ...fault };
  }

  setAccountStatus(accountId: string, status: 'ACTIVE' | 'INACTIVE'): boolean {
    return this.changes.setAccountStatus(accountId, status);
  }

  revokeUserTokens(userId: string): number {
    return this.changes.revokeApp(userId);
  }

  setWebhookUrl(url: string): void {
    this.webhookUrl = url;
  }

  showKeptData(probe: Parameters<Sandbox['showKeptData']>[0]): void {
    this.state.keptData = probe;
  }

  clearRefreshLimit(userId: string): void {
    this.state.lastRefreshAt.delete(userId);
  }

  webhookSubscriptions(): readonly WebhookSubscription[] {
    return this.subscriptions;
  }

  world(): ReturnType<Sandbox['world']> {
    const { state } = this;
    return {
      users: [...state.users.values()],
      accounts: [...state.accounts.values()],
      transactions: state.transactions,
      pending: state.pending,
      parties: state.parties,
    };
  }

  nextRequest(match: (request: RecordedRequest) => boolean): Promise<RecordedRequest> {
    return this.state.nextRequest(match);
  }

  onRequest(listener: (request: RecordedRequest) => void): () => void {
    this.state.requestListeners.add(listener);
    return () => this.state.requestListeners.delete(listener);
  }

  requests(filter: Partial<Pick<RecordedRequest, 'service' | 'method' | 'path'>> = {}): RecordedRequest[] {
    return this.state.recorded(filter);
  }

  issuedTokens(): string[] {
    return [...this.state.tokens.keys()];
  }

  private async serve(service: 'core' | 'enrichment', router: Router<SandboxRequest>, port = 0): Promise<string> {
    const server = createSandboxServer(service, router, this.state, this.options.logger, this.stopping.signal);
    this.servers.push(server);
    return listenAt(server, port, this.host, service === 'core' ? 'SANDBOX_CORE_PORT' : 'SANDBOX_ENRICHMENT_PORT');
  }

  /** The demo world (and any load-test users) at the platform and at the identity provider. */
  private seedWorld(connections: SandboxConnection[]): void {
    const { state, options } = this;
    const world = buildDemoWorld(state.clock(), connections);
    addLoadTestUsers(world, options.loadTestUsers ?? 0, connections, state.clock());
    this.identity.users.addLoadUsers(
      options.loadTestUsers ?? 0,
      LOAD_USER_PASSWORD,
      base32Encode(Buffer.from(sandboxId('totp', `load:${this.identitySeed}`).slice(-20))),
    );
    for (const user of world.users) state.users.set(user._id, user);
    for (const account of world.accounts) state.accounts.set(account._id, account);
    state.transactions = world.transactions;
    state.pending = world.pending;
    state.parties = world.parties;
  }
}
