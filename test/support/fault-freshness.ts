import type { FaultDeployment, FaultUser } from './fault-deployment.js';
import type { Instance } from './instances.js';
import type { PlatformStandIn } from './platform-stand-in.js';

/**
 * The stale check of a fault run: the platform changes an account's balance to a value higher
 * than any before, its ACCOUNT UPDATE webhook is delivered (retried until a 2xx), and once it is
 * acknowledged, a read of the account on another instance must not show an older balance. A read
 * refused during the fault (503) is not stale: only an answer can be.
 */
export interface FreshnessReport {
  /** Acknowledged ACCOUNT UPDATEs followed by an answered read. */
  checked: number;
  /** Reads refused (the store was down), which prove nothing either way. */
  refused: number;
  /** `<check>@<instance>: saw <balance> after <balance> was acknowledged`. */
  stale: string[];
}

export function createFreshnessChecks(deployment: FaultDeployment, standIn: PlatformStandIn, readers: Instance[]) {
  const report: FreshnessReport = { checked: 0, refused: 0, stale: [] };
  let counter = 0;
  let turn = 0;
  const accountOf = (user: FaultUser) =>
    deployment.platform.world().accounts.find((row) => row.sandboxUserId === user.userId && row.sandboxShared)!;

  async function balanceSeen(instance: Instance, user: FaultUser, accountId: string): Promise<number | undefined> {
    try {
      const response = await fetch(`${instance.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: user.cookie },
        body: JSON.stringify({ query: `{ account(id: "${accountId}") { balance { current } } }` }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await response.json()) as { data?: { account?: { balance: { current: number } } } };
      return response.status === 200 ? body.data?.account?.balance.current : undefined;
    } catch {
      return undefined;
    }
  }

  return {
    report,
    /** One check for `user`: read (so a copy is kept), change, deliver the webhook, read elsewhere. */
    async check(user: FaultUser, id: string): Promise<void> {
      const account = accountOf(user);
      await balanceSeen(readers[turn++ % readers.length]!, user, account._id);
      counter += 1;
      const balance = 1_000_000 + counter;
      account.balance.current = balance;
      const body = JSON.stringify({
        webhook_type: 'ACCOUNT',
        webhook_code: 'UPDATE',
        state: user.state,
        item_id: account._id,
        updated_fields: ['balance'],
        check: id,
      });
      const delivery = await standIn.deliver(id, body);
      if (!delivery.acknowledged) return;
      const reader = readers[turn++ % readers.length]!;
      const seen = await balanceSeen(reader, user, account._id);
      if (seen === undefined) report.refused += 1;
      else {
        report.checked += 1;
        if (seen < balance) report.stale.push(`${id}@${reader.name}: saw ${seen} after ${balance} was acknowledged`);
      }
    },
  };
}
