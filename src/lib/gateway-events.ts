import { EventEmitter } from 'node:events';

/**
 * Things that happened inside the gateway that an embedding program or a test may wait for, as
 * events rather than log text: the gateway is listening; a subscription's live delivery began, or
 * it ended; a webhook was published (or a change reconciliation found); a user's webhooks were registered at the platform; a user's
 * data was deleted; a Redis client was lost or restored.
 */
export interface GatewayEventMap {
  /** The gateway accepts requests at `url` (its public URL) and `listenUrl`. */
  listening: [{ url: string; listenUrl: string }];
  'subscription-started': [{ userId: string; type: string }];
  /** A started subscription let go of its subscription queue (completed, failed, or its client left). */
  'subscription-ended': [{ userId: string; type: string }];
  'webhook-published': [{ userId: string; type: string; code: string }];
  /** A change the platform made but whose webhook never arrived, found by reconciling a user's kept data and published as that webhook. */
  'change-reconciled': [{ userId: string; type: string; code: string }];
  /** A signed-in user's webhooks were registered at the platform (or some failed). */
  'webhooks-registered': [{ userId: string; registered: string[]; failed: string[]; alreadyRegistered: string[] }];
  /** Everything the gateway held for a user was deleted (`failures` names stores that failed). */
  'user-data-deleted': [{ userId: string; failures: string[] }];
  /** A Redis client ('commands' or 'listener') was lost or came back. */
  'redis-client': [{ role: string; state: 'lost' | 'restored' }];
  /** A WebSocket was cut by the gateway: its client stopped reading (WS_MAX_BUFFERED_BYTES). */
  'socket-cut': [{ reason: 'slow-reader' }];
}

/** Every event name, for code that forwards them all (see forwardEventsToParent). */
export const GATEWAY_EVENT_NAMES = [
  'listening',
  'subscription-started',
  'subscription-ended',
  'webhook-published',
  'change-reconciled',
  'webhooks-registered',
  'user-data-deleted',
  'redis-client',
  'socket-cut',
] as const satisfies ReadonlyArray<keyof GatewayEventMap>;

export class GatewayEvents extends EventEmitter<GatewayEventMap> {
  constructor() {
    super();
    // Tests and embedders may add many listeners; none is a leak by itself.
    this.setMaxListeners(0);
  }
}
