import { registerConsoleRoutes } from './console/console-routes.js';
import { registerAccessRoutes } from './core/access-routes.js';
import { registerAccountRoutes } from './core/account-routes.js';
import { registerCatalogRoutes } from './core/catalog-routes.js';
import { registerControlRoutes } from './core/control-routes.js';
import { registerIdentityRoutes } from './core/identity-routes.js';
import { registerOAuthRoutes } from './core/oauth-routes.js';
import { registerPaymentRoutes } from './core/payment-routes.js';
import { registerTransactionRoutes } from './core/transaction-routes.js';
import { registerUserRoutes } from './core/user-routes.js';
import { registerVerifyNameRoutes } from './core/verify-name-routes.js';
import type { SandboxCategory } from './data/categories.js';
import type { SandboxConnection } from './model/core-model.js';
import type { Sandbox } from './sandbox-api.js';
import type { SandboxRouter } from './sandbox-http.js';
import type { SandboxState } from './sandbox-state.js';
import { registerDemoControlRoutes } from './webhooks/demo-control-routes.js';
import { registerEventControls } from './webhooks/event-controls.js';
import { registerWebhookEventRoutes } from './webhooks/events-routes.js';
import { registerKeyRoutes } from './webhooks/key-routes.js';
import { registerSubscriptionRoutes, type WebhookSubscription } from './webhooks/subscription-routes.js';

export interface CoreRouteParts {
  state: SandboxState;
  sandbox: Sandbox;
  connections: SandboxConnection[];
  categories: Map<string, SandboxCategory>;
  subscriptions: WebhookSubscription[];
  webhookUrl: () => string | undefined;
  codeTtlMs: number;
  /** The app's name as registered: its consent page names it. */
  appName: string;
}

/**
 * Every route of the core origin: the platform's API (OAuth, users, accounts, transactions,
 * catalogue, identity, refresh and revocation, name verification, payments, webhook keys,
 * subscriptions and delivery log), then the sandbox's own controls and console. Returns what
 * stops the console's live updates.
 */
export function registerCoreRoutes(router: SandboxRouter, parts: CoreRouteParts): () => void {
  const { state, sandbox } = parts;
  registerOAuthRoutes(router, state, {
    codeTtlMs: parts.codeTtlMs,
    appName: parts.appName,
    appUserEmails: () => new Map(sandbox.identity.users.demoUsers().map((user) => [user.name, user.email])),
    onConsentAgain: (userId) => sandbox.changes.reconnected(userId),
  });
  registerUserRoutes(router, state);
  registerAccountRoutes(router, state);
  registerTransactionRoutes(router, state);
  registerCatalogRoutes(router, state, parts.connections, parts.categories);
  registerIdentityRoutes(router, state);
  registerAccessRoutes(router, state, (userId, accounts) => sandbox.changes.refreshed(userId, accounts));
  registerVerifyNameRoutes(router, state);
  registerKeyRoutes(router, state, sandbox.signingKeys);
  registerSubscriptionRoutes(router, state, parts.subscriptions, parts.webhookUrl);
  registerWebhookEventRoutes(router, state, sandbox.deliveries);
  registerPaymentRoutes(router, state, sandbox.payments);
  registerControlRoutes(router, state, sandbox);
  registerDemoControlRoutes(router, sandbox);
  registerEventControls(router, state, sandbox.deliveries, sandbox.changes);
  return registerConsoleRoutes(router, state, sandbox);
}
