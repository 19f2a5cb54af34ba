import { EventEmitter } from 'node:events';

/**
 * Things that happened inside the gateway that an embedding program or a test may wait for, as
 * events rather than log text: a subscription's live delivery began; a webhook was published; a
 * user's webhook subscriptions were set up; a user's data was deleted.
 */
export interface GatewayEventMap {
  'subscription-started': [{ userId: string; type: string }];
  'webhook-published': [{ userId: string; type: string; code: string }];
  /** A signed-in user's webhook subscriptions at the platform were set up (or some failed). */
  'webhooks-subscribed': [{ userId: string; subscribed: string[]; failed: string[] }];
  /** Everything the gateway held for a user was deleted (`failures` names stores that failed). */
  'user-data-deleted': [{ userId: string; failures: string[] }];
}

export class GatewayEvents extends EventEmitter<GatewayEventMap> {
  constructor() {
    super();
    // Tests and embedders may add many listeners; none is a leak by itself.
    this.setMaxListeners(0);
  }
}
