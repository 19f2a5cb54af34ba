import type { Clock } from '@open-finance-gateway/common/clock';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { DemoWorld } from './data/demo-world.js';
import type { SandboxIdentity } from './identity/identity-provider.js';
import type {
  EnrichmentFault,
  KeptDataProbe,
  RecordedRequest,
  SandboxCredentials,
  ServiceFault,
} from './sandbox-state.js';
import type { DeliveryEngine } from './webhooks/delivery-engine.js';
import type { PaymentControls } from './webhooks/payment-controls.js';
import type { SigningKeys } from './webhooks/signing-keys.js';
import type { WebhookSubscription } from './webhooks/subscription-routes.js';
import type { WorldChanges } from './webhooks/world-changes.js';

/** The identity provider's load-test app users' password (benchmarks only; nothing real behind it). */
export const LOAD_USER_PASSWORD = 'Load-Sandbox-2026!';

export interface SandboxOptions {
  logger: Logger;
  /** Header names as the gateway is configured: `X-Service` (specification) or `X-Akahu`. */
  headerPrefix: string;
  host?: string;
  corePort?: number;
  enrichmentPort?: number;
  credentials?: Partial<SandboxCredentials>;
  /** Redirect URIs registered for the app, as the operator would register them. */
  redirectUris?: string[];
  /** Lifetime of an authorization code. @default 60000 */
  codeTtlMs?: number;
  /** The app's registered webhook URL; the embedded sandbox is given the gateway's `/webhooks`. */
  webhookUrl?: string;
  /** Keep a log of received requests for `requests()` (tests and benchmarks). @default false */
  recordRequests?: boolean;
  /**
   * Benchmarks: this many extra users (`load_<n>`), each with one account, and as many app users
   * at the identity provider (`load_<n>@load.example`, password LOAD_USER_PASSWORD + authenticator code). @default 0
   */
  loadTestUsers?: number;
  /** Divides webhook retry intervals (hourly for three days at 1). @default 1 */
  webhookTimeScale?: number;
  /** How long a payment or transfer created through the API stays READY before it settles. @default 1000 */
  paymentSettleMs?: number;
  /** The sandbox OpenID provider's port. @default 0 (any free port) */
  identityPort?: number;
  /** Derives the identity provider's demo users and client secret, the same on every start. @default random */
  identitySeed?: string;
  /** The identity provider's issuer URL as apps reach it. @default http://<host>:<identityPort> */
  identityIssuer?: string;
  /**
   * The app's name, as registered with the platform (and at its identity provider): the consent
   * page says who asks, the sign-in pages what the user signs in to. @default DEFAULT_APP_NAME
   */
  appName?: string;
  clock?: Clock;
}

export interface Sandbox {
  readonly credentials: SandboxCredentials;
  /** `{base_url}`: the core API and hosted OAuth pages. Set once started. */
  readonly coreUrl: string;
  /** `{enrichment_url}`: its own origin, as on the live platform. */
  readonly enrichmentUrl: string;
  readonly authorizeUrl: string;
  /** The sandbox console: the demo world, the delivery log and every control, live. */
  readonly consoleUrl: string;
  /** The app's identity provider (OpenID Connect), with demo users and multi-factor sign-in. */
  readonly identity: SandboxIdentity;
  start(): Promise<void>;
  stop(): Promise<void>;
  registerRedirectUri(uri: string): void;
  setEnrichmentFault(fault: EnrichmentFault): void;
  setCoreFault(fault: ServiceFault): void;
  /** As if the bank connection broke: the account turns INACTIVE (or back). */
  setAccountStatus(accountId: string, status: 'ACTIVE' | 'INACTIVE'): boolean;
  /** As if the user revoked the app outside it: every token of the user dies. Returns how many. */
  revokeUserTokens(userId: string): number;
  /** Lets a later manual refresh through at once (the 5-minute rule otherwise holds). */
  clearRefreshLimit(userId: string): void;
  /** Webhook signing keys: sign like the platform, rotate to a new key id. */
  readonly signingKeys: SigningKeys;
  /** Webhook subscriptions apps made for their users. */
  webhookSubscriptions(): readonly WebhookSubscription[];
  /** Registers the app's webhook URL, as the operator does on the live platform. */
  setWebhookUrl(url: string): void;
  /**
   * Lets the console show, per demo user, whether the embedding gateway serves their data from
   * its user-data store and how old it is. Embedded mode only: the console asks nothing without it.
   */
  showKeptData(probe: KeptDataProbe): void;
  /** Delivery log and lifecycle of webhooks. */
  readonly deliveries: DeliveryEngine;
  /** Create payments and transfers and move them through their statuses (emitting webhooks). */
  readonly payments: PaymentControls;
  /** Changes at the platform outside the app (accounts connected or removed, transactions withdrawn, income). */
  readonly changes: WorldChanges;
  /** Read-only view of the seeded world, for tests and demos. */
  world(): Readonly<DemoWorld>;
  /** Calls `listener` with each request as it arrives (kept or not); returns how to stop. */
  onRequest(listener: (request: RecordedRequest) => void): () => void;
  /** Requests received so far, oldest first (needs `recordRequests`). */
  requests(filter?: Partial<Pick<RecordedRequest, 'service' | 'method' | 'path'>>): RecordedRequest[];
  /** Resolves with the first request (already received or still to come) that matches. */
  nextRequest(match: (request: RecordedRequest) => boolean): Promise<RecordedRequest>;
  /** Every user access token issued so far (for the test suite's secret-leak audit). */
  issuedTokens(): string[];
}
