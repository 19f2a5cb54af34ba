import { deliveryMarkKey, type DeliveryMarks } from '../event-log/delivery-marks.js';
import type { DeadLetter, DeadLetterStore } from './dead-letter-store.js';

/** In process memory, bounded, on the delivery marks the memory event log and ledger share. */
export function createMemoryDeadLetterStore(options: { maxEntries?: number; marks: DeliveryMarks }): DeadLetterStore {
  const letters: DeadLetter[] = [];
  const max = options.maxEntries ?? 200;
  return {
    async add(letter) {
      const key = deliveryMarkKey('dead-letters', letter.bodyHash);
      if (options.marks.isDone(key)) return false;
      letters.unshift(letter);
      if (letters.length > max) letters.length = max;
      options.marks.markDone(key);
      return true;
    },
    async list() {
      return [...letters];
    },
  };
}
