import type { Clock } from '@open-finance-gateway/common/clock';
import type { UserDataStore } from '../user-data/user-data-store.js';
import type { RoutingHandleStore } from '../webhooks/routing-handle-store.js';
import type { KeptDataProbe, Sandbox } from './upstream-choice.js';

/**
 * Lets the embedded sandbox's console show, per demo user, whether their reads are served from the
 * user-data store: the sandbox names the webhook states (routing handles) this gateway registered
 * for the user, the handles name the app user, and the store says how old their oldest kept answer
 * is. Read-only, and only with the embedded sandbox and a user-data store: a live platform is never
 * told anything of the sort.
 */
export function showKeptDataInSandbox(
  sandbox: Sandbox | undefined,
  userData: UserDataStore | undefined,
  handles: RoutingHandleStore,
  clock: Clock,
): void {
  if (!sandbox || !userData) return;
  const probe: KeptDataProbe = async (webhookStates) => {
    const appUsers = new Set(
      (await Promise.all(webhookStates.map((state) => handles.userFor(state)))).filter((user) => user !== undefined),
    );
    const written = (await Promise.all([...appUsers].map((user) => userData.oldestKept(user)))).filter(
      (at) => at !== undefined,
    );
    return written.length > 0 ? clock() - Math.min(...written) : undefined;
  };
  sandbox.showKeptData(probe);
}
