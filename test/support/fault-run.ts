import { randomBytes } from 'node:crypto';
import { startFaultDeployment, type FaultDeployment, type FaultUser } from './fault-deployment.js';
import { createFreshnessChecks, type FreshnessReport } from './fault-freshness.js';
import { subscribePayments, type FaultSubscriber } from './fault-subscriber.js';
import type { Instance } from './instances.js';
import { createPlatformStandIn, type Delivery, type PlatformStandIn } from './platform-stand-in.js';

/**
 * One fault run: live subscribers of every user on the `subscribers` instances, a stream of
 * distinct signed payment webhooks through the platform stand-in to the `receivers`, a fault
 * injected once `faultAfter` events have been sent, then one closing event per user after the
 * fault, and the ledger of what the platform was told against what subscribers got.
 */
export interface FaultRunOptions {
  deployment: FaultDeployment;
  receivers: Instance[];
  subscribers: Instance[];
  events: number;
  /** Webhooks in flight at once. @default 4 */
  concurrency?: number;
  /** Sent events after which each fault starts (its promise resolves once the fault is over). */
  faults: Array<{ after: number; inject: () => Promise<void> }>;
  /** How long a still-live subscriber may take to receive the closing event. @default 15000 */
  settleMs?: number;
}

export interface FaultReport {
  sent: number;
  acknowledged: number;
  /** Acknowledged events every subscriber of their user got once, live or by cursor replay. */
  delivered: number;
  /** Events some subscriber received more than once (`id@instance`). */
  duplicated: string[];
  /** Events the replayable log holds more than once. */
  storedTwice: string[];
  /** Acknowledged events in no subscriber's hands and not in the replayable log. */
  lost: string[];
  /** Of those, answered 200 `duplicate` after a refused attempt, yet never stored. */
  acknowledgedAsDuplicateNeverStored: string[];
  /** Events the platform never got a 2xx for (their retries never processed). */
  unacknowledged: string[];
  /** Seconds from each fault's end to the first `published` answer to an attempt started after it. */
  recoverySeconds: number[];
  refusedAttempts: number;
  subscribersEnded: string[];
  /** Subscribers still open that never received their user's closing event: live delivery stopped. */
  subscribersSilent: string[];
  /** Resubscriptions from the last cursor after EVENTS_DROPPED (a reader too slow), live and replay. */
  resumedAfterDrop: number;
  /** Reads after acknowledged ACCOUNT UPDATEs: none may show data older than its webhook. */
  freshness: FreshnessReport;
}

/** Every this many stream events, a freshness check (an ACCOUNT UPDATE, then a read on another instance). */
const FRESHNESS_EVERY = 5;

export function paymentWebhook(user: FaultUser, id: string): string {
  const nonce = randomBytes(4).toString('hex');
  return JSON.stringify({
    webhook_type: 'PAYMENT',
    webhook_code: 'UPDATE',
    state: user.state,
    item_id: id,
    status: 'SENT',
    nonce,
  });
}

/** The suite's command timeout and stream length: a fault lasts a few command timeouts. */
export const FAULT_COMMAND_TIMEOUT_MS = 300;
const FAULT_EVENTS = 60;

/**
 * The suite's one shape: three gateway instances and two users on the Redis of `env`, webhooks to
 * A (and B when `receiversAB`), live subscribers on B and C, and `inject` a third of the way in.
 */
export async function runOneFault(options: {
  env: Record<string, string>;
  inject: (deployment: FaultDeployment) => Promise<void>;
  receiversAB?: boolean;
}): Promise<FaultReport> {
  const deployment = await startFaultDeployment({
    redis: options.env,
    instances: 3,
    users: 2,
    commandTimeoutMs: FAULT_COMMAND_TIMEOUT_MS,
  });
  const [a, b, c] = deployment.instances;
  return runFaultStream({
    deployment,
    receivers: options.receiversAB ? [a!, b!] : [a!],
    subscribers: [b!, c!],
    events: FAULT_EVENTS,
    faults: [{ after: FAULT_EVENTS / 3, inject: () => options.inject(deployment) }],
  });
}

export async function runFaultStream(options: FaultRunOptions): Promise<FaultReport> {
  const { deployment } = options;
  const standIn = createPlatformStandIn({
    sign: (body) => deployment.platform.signingKeys.sign(body),
    targets: () => options.receivers.map((instance) => `${instance.url}/webhooks`),
  });
  const subscribers: FaultSubscriber[] = [];
  for (const instance of options.subscribers)
    for (const user of deployment.users)
      subscribers.push(await subscribePayments(instance, user, deployment.publicUrl));

  // A first event per user: every subscriber is live, and its cursor is where replay starts from.
  const baseline = await Promise.all(deployment.users.map((user) => send(standIn, user, `base_${user.index}`)));
  const replayFrom = new Map<number, string>();
  for (const subscriber of subscribers) {
    if (!(await subscriber.arrival(`base_${subscriber.user.index}`, 10_000)))
      throw new Error(`subscriber on ${subscriber.instance.name} never got the first event: ${subscriber.ended}`);
    replayFrom.set(subscriber.user.index, subscriber.cursors.get(`base_${subscriber.user.index}`)!);
  }
  // Stored either way: 'duplicate' answers a retry of an event stored while its first answer was
  // a 503 (a replica not yet in sync on a fresh Cluster does that; the retry finds it done).
  const stored = (answer: string | undefined) => answer === 'published' || answer === 'duplicate';
  if (!baseline.every((delivery) => stored(delivery.answer)))
    throw new Error(`baseline not stored: ${baseline.map((delivery) => delivery.answer).join(', ')}`);

  const freshness = createFreshnessChecks(deployment, standIn, [...options.subscribers, ...options.receivers]);
  const faultEnds: number[] = [];
  const faults: Array<Promise<void>> = [];
  let next = 0;
  const worker = async () => {
    while (next < options.events) {
      const n = next++;
      for (const fault of options.faults)
        if (fault.after === n) faults.push(fault.inject().then(() => void faultEnds.push(performance.now())));
      const user = deployment.users[n % deployment.users.length]!;
      await send(standIn, user, `pay_${n}`);
      if (n % FRESHNESS_EVERY === 0) await freshness.check(user, `acct_${n}`);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  await Promise.all(faults);
  const closing = await Promise.all(deployment.users.map((user) => send(standIn, user, `end_${user.index}`)));
  const settleMs = options.settleMs ?? 15_000;
  const settled = await Promise.all(subscribers.map((s) => s.arrival(`end_${s.user.index}`, settleMs)));
  const silent = subscribers
    .filter((s, n) => !settled[n] && !s.ended)
    .map((s) => `${s.instance.name}/user ${s.user.index}: last live event ${s.received.at(-1)}`);

  // What a client resuming from its cursor would get: the log after the first event, per user.
  const replayed = new Map<number, string[]>();
  let resumed = 0;
  for (const user of deployment.users) {
    const replay = await subscribePayments(
      options.subscribers[0]!,
      user,
      deployment.publicUrl,
      replayFrom.get(user.index),
    );
    const complete = await replay.arrival(`end_${user.index}`, settleMs);
    resumed += replay.resumed;
    if (!complete && !closing[user.index]!.acknowledged) throw new Error(`replay for user ${user.index} incomplete`);
    replayed.set(user.index, [...replay.received]);
    await replay.close();
  }
  return {
    ...judge(standIn, subscribers, replayed, faultEnds, deployment.users),
    subscribersSilent: silent,
    resumedAfterDrop: resumed + subscribers.reduce((sum, s) => sum + s.resumed, 0),
    freshness: freshness.report,
  };
}

async function send(standIn: PlatformStandIn, user: FaultUser, id: string): Promise<Delivery> {
  return standIn.deliver(id, paymentWebhook(user, id));
}

function judge(
  standIn: PlatformStandIn,
  subscribers: FaultSubscriber[],
  replayed: Map<number, string[]>,
  faultEnds: number[],
  users: FaultUser[],
): Omit<FaultReport, 'subscribersSilent' | 'resumedAfterDrop' | 'freshness'> {
  const stream = standIn.deliveries.filter((delivery) => delivery.id.startsWith('pay_'));
  const userOf = (id: string) => users[Number(id.slice(4)) % users.length]!;
  const report: Omit<FaultReport, 'subscribersSilent' | 'resumedAfterDrop' | 'freshness'> = {
    sent: stream.length,
    acknowledged: 0,
    delivered: 0,
    duplicated: [],
    storedTwice: [],
    lost: [],
    acknowledgedAsDuplicateNeverStored: [],
    unacknowledged: [],
    recoverySeconds: [],
    refusedAttempts: 0,
    subscribersEnded: subscribers.filter((s) => s.ended).map((s) => `${s.instance.name}/${s.user.index}: ${s.ended}`),
  };
  for (const delivery of stream) {
    report.refusedAttempts += delivery.attempts.filter(
      (attempt) => attempt.status < 200 || attempt.status >= 300,
    ).length;
    const mine = subscribers.filter((s) => s.user === userOf(delivery.id));
    const counts = mine.map((s) => s.received.filter((id) => id === delivery.id).length);
    mine.forEach((s, n) => counts[n]! > 1 && report.duplicated.push(`${delivery.id}@${s.instance.name}`));
    const copies = replayed.get(userOf(delivery.id).index)!.filter((id) => id === delivery.id).length;
    if (copies > 1) report.storedTwice.push(delivery.id);
    if (!delivery.acknowledged) {
      report.unacknowledged.push(delivery.id);
      continue;
    }
    report.acknowledged += 1;
    const stored = copies > 0;
    if (counts.every((count) => count === 1) || (stored && counts.every((count) => count <= 1))) report.delivered += 1;
    if (!stored && counts.every((count) => count === 0)) {
      report.lost.push(delivery.id);
      if (delivery.answer === 'duplicate') report.acknowledgedAsDuplicateNeverStored.push(delivery.id);
    }
  }
  for (const end of faultEnds) {
    const firstAfter = standIn.deliveries
      .flatMap((delivery) => delivery.attempts)
      .filter((attempt) => attempt.startedAt >= end && attempt.answer === 'published')
      .reduce((earliest, attempt) => Math.min(earliest, attempt.endedAt), Infinity);
    report.recoverySeconds.push(Number(((firstAfter - end) / 1_000).toFixed(2)));
  }
  return report;
}
