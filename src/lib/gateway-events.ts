import { EventEmitter } from 'node:events';

/**
 * Things that happened inside the gateway that an embedding program or a test may wait for, as
 * events rather than log text: a subscription's live delivery began; a webhook was published.
 */
export interface GatewayEventMap {
  'subscription-started': [{ userId: string; type: string }];
  'webhook-published': [{ userId: string; type: string; code: string }];
}

export class GatewayEvents extends EventEmitter<GatewayEventMap> {
  constructor() {
    super();
    // Tests and embedders may add many listeners; none is a leak by itself.
    this.setMaxListeners(0);
  }
}
