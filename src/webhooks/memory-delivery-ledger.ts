import { deliveryMarkKey, type DeliveryMarks } from '../event-log/delivery-marks.js';
import type { DeliveryLedger } from './delivery-ledger.js';

/** In process memory, on the delivery marks the memory event log and dead letters share. */
export function createMemoryDeliveryLedger(options: { marks: DeliveryMarks; leaseMs: number }): DeliveryLedger {
  return {
    async claim(scope, bodyHash, reclaimDone) {
      return options.marks.claim(deliveryMarkKey(scope, bodyHash), options.leaseMs, reclaimDone);
    },
    async release(scope, bodyHash, token) {
      options.marks.release(deliveryMarkKey(scope, bodyHash), token);
    },
  };
}
