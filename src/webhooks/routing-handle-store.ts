import { randomToken } from '@open-finance-gateway/common/ids';

/**
 * The `state` the gateway gives the platform when subscribing a user to webhooks: an opaque,
 * unguessable handle that maps back to the user. Never the user id or anything personal, since it
 * travels in every webhook. In memory now, behind this interface for a shared store later.
 */
export interface RoutingHandleStore {
  /** The user's handle, created on first use. */
  handleFor(userId: string): Promise<string>;
  userFor(handle: string): Promise<string | undefined>;
  /** Records that the platform cancelled one of the user's webhook types. */
  markCancelled(userId: string, webhookType: string): Promise<void>;
  cancelledTypes(userId: string): Promise<string[]>;
  deleteUser(userId: string): Promise<void>;
}

export function createMemoryRoutingHandles(): RoutingHandleStore {
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
