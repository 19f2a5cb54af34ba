import type { Clock } from '@open-finance-gateway/common/clock';
import { ACCESS_ENDING_TTL_MS, type SessionEndingsBus } from './session-endings.js';

/** One instance knows its own endings: nothing to tell anyone; the instants are kept here. */
export function createMemorySessionEndings(clock: Clock): SessionEndingsBus {
  /** `userId` → device (or `*`, the whole user) → the instant, and when it may be forgotten. */
  const instants = new Map<string, Map<string, { at: number; until: number }>>();
  return {
    async publish() {},
    onRemoteEnded() {},
    async endAccessBefore(userId, at, device = '*') {
      let user = instants.get(userId);
      if (!user) instants.set(userId, (user = new Map()));
      const now = clock();
      for (const [key, entry] of user) if (entry.until <= now) user.delete(key);
      user.set(device, { at: Math.max(at, user.get(device)?.at ?? 0), until: now + ACCESS_ENDING_TTL_MS });
    },
    async accessNotBefore(userId, device) {
      const user = instants.get(userId);
      if (!user) return undefined;
      const now = clock();
      const found = [user.get('*'), user.get(device)].filter((entry) => entry !== undefined && entry.until > now);
      return found.length === 0 ? undefined : Math.max(...found.map((entry) => entry!.at));
    },
  };
}
