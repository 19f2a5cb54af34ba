import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deployment, graphql, postWebhook, readKept, routingState, signInVia } from '../support/deployment.js';
import type { Instance } from '../support/instances.js';
import { PREVIOUS_VERSION, previousVersion } from '../support/previous-version.js';
import { REDIS_URL } from '../support/redis.js';

/**
 * The version this one rolls from, and the one before the store (edd116b: it keeps no user data,
 * so it changes none when it acknowledges a webhook).
 */
const VERSIONS = [PREVIOUS_VERSION, 'edd116b'].map((commit) => ({ commit, version: previousVersion(commit) }));

describe.each(VERSIONS)('a rolling deploy: this version and $commit on one Redis', ({ commit, version }) => {
  it.skipIf('missing' in version)(
    `serves no read, on either version, older than a webhook either one acknowledged (from ${commit})`,
    async () => {
      const earlier = 'entry' in version ? version.entry : undefined;
      // A is the earlier version, B this one; both keep user data on the shared Redis.
      const deployed = await deployment(2, { REDIS_URL, USER_DATA_STORE: 'redis' }, [earlier, undefined]);
      const [old, current] = deployed.instances as [Instance, Instance];
      const userId = await signInVia(deployed, current, current);
      const state = routingState(deployed.sandbox, userId);
      const world = deployed.sandbox.world();
      const account = world.accounts.find((row) => row.sandboxUserId === userId && row.sandboxShared)!;
      const both = async () => [
        await readKept(deployed, old, account._id),
        await readKept(deployed, current, account._id),
      ];
      const deliver = async (to: Instance, fields: Record<string, unknown>) => {
        // The platform's own bodies: an ACCOUNT UPDATE repeats its bytes for each balance change.
        const answer = await postWebhook(deployed.sandbox, to, JSON.stringify({ state, ...fields }));
        expect(answer.status, `${to.name}: ${JSON.stringify(answer.body)}`).toBe(200);
      };

      for (let round = 0; round < 6; round += 1) {
        const [first, second] = round % 2 === 0 ? [old, current] : [current, old];
        await both(); // each version keeps what it read, in its own shape

        // A balance change acknowledged by one version: neither serves the balance before it.
        account.balance.current += 100;
        await deliver(first, {
          webhook_type: 'ACCOUNT',
          webhook_code: 'UPDATE',
          item_id: account._id,
          updated_fields: ['balance'],
        });
        for (const seen of await both()) {
          expect(seen.account.balance.current).toBe(account.balance.current);
          expect(seen.accounts.find((row) => row.id === account._id)!.balance.current).toBe(account.balance.current);
        }

        // A new transaction acknowledged by the other: both show it on every page.
        const template = world.transactions.find((row) => row._account === account._id)!;
        const added = { ...template, _id: `trans_${randomBytes(8).toString('hex')}`, date: new Date().toISOString() };
        world.transactions.unshift(added);
        await deliver(second, {
          webhook_type: 'TRANSACTION',
          webhook_code: 'DEFAULT_UPDATE',
          item_id: account._id,
          new_transactions: 1,
          new_transaction_ids: [added._id],
        });
        for (const seen of await both()) {
          expect(seen.transactions.nodes[0]!.id).toBe(added._id);
          expect(seen.all.nodes[0]!.id).toBe(added._id);
        }

        // The bank withdraws it; the first version acknowledges: neither shows it any more.
        world.transactions.splice(world.transactions.indexOf(added), 1);
        await deliver(first, {
          webhook_type: 'TRANSACTION',
          webhook_code: 'DELETE',
          item_id: account._id,
          removed_transactions: [added._id],
        });
        for (const seen of await both()) {
          expect(seen.transactions.nodes.map((row) => row.id)).not.toContain(added._id);
          expect(seen.all.nodes.map((row) => row.id)).not.toContain(added._id);
        }
      }

      // The deploy completes: the earlier instance stops. This version serves from its store again
      // (a read costs no platform call) once it has read anew what it kept while the other ran.
      old.process.kill('SIGTERM');
      await old.exited;
      const platformReads = () =>
        deployed.sandbox
          .requests({ service: 'core' })
          .filter((request) => /^\/v1\/(me|accounts|transactions)/.test(request.path)).length;
      let served = false;
      for (let attempt = 0; attempt < 200 && !served; attempt += 1) {
        const before = platformReads();
        const seen = await readKept(deployed, current, account._id);
        expect(seen.account.balance.current).toBe(account.balance.current);
        served = platformReads() === before;
      }
      expect(served).toBe(true);
    },
    240_000,
  );
});

describe('a rolling deploy keeps everyone signed in and connected', () => {
  const previous = previousVersion(PREVIOUS_VERSION);
  /** Sign-in and consent start on one version and land on another; then each version serves the user. */
  const PATHS = [
    { start: 'previous', finish: 'previous' },
    { start: 'this', finish: 'this' },
    { start: 'previous', finish: 'this' },
    { start: 'this', finish: 'previous' },
  ] as const;
  it.skipIf('missing' in previous).each(PATHS)(
    `signed in and connected from the $start version to the $finish (${PREVIOUS_VERSION} and this one), the user is served by both with no new sign-in or consent`,
    async ({ start, finish }) => {
      const earlier = 'entry' in previous ? previous.entry : undefined;
      const deployed = await deployment(2, { REDIS_URL }, [earlier, undefined]);
      const [old, current] = deployed.instances as [Instance, Instance];
      const of = (version: 'previous' | 'this') => (version === 'previous' ? old : current);
      const me = async (instance: Instance) => {
        const answer = await graphql(deployed, instance);
        expect(answer.status, `${instance.name}: ${JSON.stringify(answer.body)}`).toBe(200);
        return (answer.body as { data: { me: { id: string } } }).data.me.id;
      };
      // The session's cookie, the session and the bank connection were each written by one version
      // (the consent's by the one it finished on): every read below reaches the platform with them.
      const userId = await signInVia(deployed, of(start), of(finish));
      expect([await me(old), await me(current), await me(old)]).toEqual([userId, userId, userId]);
    },
    240_000,
  );

  it.skipIf('missing' in previous)(
    `keeps a user signed in who signs in again on the previous version (${PREVIOUS_VERSION}), which ends the session both cookie names carried`,
    async () => {
      const earlier = 'entry' in previous ? previous.entry : undefined;
      const deployed = await deployment(2, { REDIS_URL }, [earlier, undefined]);
      const [old, current] = deployed.instances as [Instance, Instance];
      const userId = await signInVia(deployed, current, current);
      // Signed in again on the previous version (the provider remembers the user): it ends the
      // session its cookie names and sets a new one under its own name only.
      let hop = await deployed.via(old).request(`${deployed.publicUrl}/auth/login`);
      while (hop.location && !hop.location.startsWith(`${deployed.publicUrl}/auth/oidc/callback`))
        hop = await deployed.browser.request(hop.location);
      const landed = await deployed.via(old).request(hop.location!);
      expect(landed.status, landed.text).toBe(303);
      for (const instance of [current, old]) {
        const answer = await graphql(deployed, instance);
        expect(answer.status, `${instance.name}: ${JSON.stringify(answer.body)}`).toBe(200);
        expect((answer.body as { data: { me: { id: string } } }).data.me.id).toBe(userId);
      }
    },
    240_000,
  );
});
