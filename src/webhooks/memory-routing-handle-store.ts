import { randomToken } from '@open-finance-gateway/common/ids';
import type { RoutingHandleStore } from './routing-handle-store.js';

/** In process memory: lost with the process, with the events they route. */
export function createMemoryRoutingHandleStore(): RoutingHandleStore {
  const handles = new Map<string, string>();
  const users = new Map<string, { handle: string; cancelled: Set<string> }>();
  return {
    async handleFor(userId) {
      let entry = users.get(userId);
      if (!entry) {
        entry = { handle: `rh_${randomToken(24)}`, cancelled: new Set() };
        users.set(userId, entry);
        handles.set(entry.handle, userId);
      }
      return entry.handle;
    },
    async userFor(handle) {
      return handles.get(handle);
    },
    async markCancelled(userId, webhookType) {
      users.get(userId)?.cancelled.add(webhookType);
    },
    async cancelledTypes(userId) {
      return [...(users.get(userId)?.cancelled ?? [])];
    },
    async deleteUser(userId) {
      const entry = users.get(userId);
      if (!entry) return;
      handles.delete(entry.handle);
      users.delete(userId);
    },
  };
}
