import { GATEWAY_EVENT_NAMES, type GatewayEventMap, type GatewayEvents } from './gateway-events.js';

/** What a parent process receives over IPC for each of the gateway's events. */
export interface ParentEventMessage<K extends keyof GatewayEventMap = keyof GatewayEventMap> {
  type: 'gateway-event';
  name: K;
  event: GatewayEventMap[K][0];
}

/**
 * Sends every gateway event to a parent process (`IPC_EVENTS`), so a harness that runs the built
 * gateway as a child waits on the same events an in-process embedder listens to, not on log text.
 * Messages queue in this process while the parent is slow: meant for tests and supervisors, not for
 * an unattended channel. Returns a function that stops forwarding.
 */
export function forwardEventsToParent(events: GatewayEvents, send: (message: ParentEventMessage) => void): () => void {
  const stops = GATEWAY_EVENT_NAMES.map((name) => {
    const listener = (event: GatewayEventMap[typeof name][0]) => send({ type: 'gateway-event', name, event });
    events.on(name, listener);
    return () => events.off(name, listener);
  });
  return () => stops.forEach((stop) => stop());
}
