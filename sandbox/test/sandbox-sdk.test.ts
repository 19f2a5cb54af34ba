import { AkahuClient, type Payment } from 'akahu';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/sandbox.js';
import { authorize, sdkAgainstSandbox, signedIn, webhookReceiver } from './support/sdk.js';

function payableFrom(sandbox: Sandbox, userId: string) {
  return sandbox.world().accounts.find((a) => a.sandboxUserId === userId && a.attributes.includes('PAYMENT_FROM'))!;
}

const SETTLED = ['SENT', 'DECLINED', 'ERROR', 'CANCELLED', 'PENDING_APPROVAL'];

/** Waits for the sandbox to settle the payment (its own event), then reads it through the SDK. */
async function settled(setup: { akahu: AkahuClient; sandbox: Sandbox }, token: string, id: string): Promise<Payment> {
  await setup.sandbox.payments.waitForStatus(id, SETTLED);
  return setup.akahu.payments.get(token, id);
}

describe('the sandbox, driven by the platform\u2019s SDK (akahu@2)', () => {
  it('signs in (authorize page at the origin\u2019s root, code exchange), reads the user, revokes the token', async () => {
    const setup = await sdkAgainstSandbox();
    const token = await signedIn(setup);
    expect(token).toMatch(/^user_token_/);
    const user = await setup.akahu.users.get(token);
    expect(user._id).toMatch(/^user_/);
    expect(user.email).toContain('@');
    // Every SDK request carried X-Akahu-Id, and the sandbox accepted it.
    expect(setup.sandbox.requests({ path: '/v1/me' })[0]!.headers['x-akahu-id']).toBe(
      setup.sandbox.credentials.appToken,
    );
    await setup.akahu.auth.revoke(token);
    await expect(setup.akahu.users.get(token)).rejects.toMatchObject({ status: 403 });
  });

  it('reads accounts, transactions (by page, by id, by ids, pending), parties, connections and categories', async () => {
    const setup = await sdkAgainstSandbox();
    const { akahu } = setup;
    const token = await signedIn(setup);

    const accounts = await akahu.accounts.list(token);
    expect(accounts.length).toBeGreaterThan(1);
    for (const account of accounts) {
      expect(account._credentials).toBe(account._authorisation);
      expect(account.connection._id).toMatch(/^conn_/);
    }
    const one = await akahu.accounts.get(token, accounts[0]!._id);
    expect(one._id).toBe(accounts[0]!._id);

    const page = await akahu.transactions.list(token, {
      start: new Date(Date.now() - 90 * 86_400_000).toISOString(),
      end: new Date().toISOString(),
    });
    expect(page.items.length).toBeGreaterThan(0);
    const first = page.items[0]!;
    expect(first.hash).toEqual(expect.any(String));
    expect((await akahu.transactions.get(token, first._id))._id).toBe(first._id);
    expect((await akahu.transactions.getMany(token, [first._id])).map((t) => t._id)).toEqual([first._id]);
    expect(Array.isArray(await akahu.transactions.listPending(token))).toBe(true);
    const ofAccount = await akahu.accounts.listTransactions(token, first._account, {});
    expect(ofAccount.items.every((t) => t._account === first._account)).toBe(true);

    const parties = await akahu.parties.list(token);
    expect(parties.length).toBeGreaterThan(0);
    expect(parties[0]).toMatchObject({ _user: expect.stringMatching(/^user_/), type: 'INDIVIDUAL' });
    expect(parties[0]!.name?.value).toEqual(expect.any(String));

    const connections = await akahu.connections.list();
    expect(connections.map((c) => c.name)).toContain('ANZ');
    expect((await akahu.connections.get(connections[0]!._id)).name).toBe(connections[0]!.name);
    const categories = await akahu.categories.list();
    expect(categories.length).toBeGreaterThan(10);
    expect((await akahu.categories.get(categories[0]!._id)).name).toBe(categories[0]!.name);
    // Another app's credentials do not read the app-scoped catalogue.
    const stranger = new AkahuClient({
      appToken: 'app_token_stranger',
      appSecret: 'nope',
      protocol: 'http',
      host: setup.core.hostname,
      port: Number(setup.core.port),
    });
    await expect(stranger.connections.list()).rejects.toMatchObject({ status: 401 });
  });

  it('creates payments with idempotency keys, replays them, refuses a reused key with another body, lists, reads and cancels them', async () => {
    const setup = await sdkAgainstSandbox();
    const { akahu, sandbox } = setup;
    const token = await signedIn(setup);
    const userId = (await akahu.users.get(token))._id;
    const from = payableFrom(sandbox, userId);
    const order = {
      from: from._id,
      amount: 12.5,
      to: { name: 'Kiwi Plumbing Ltd', account_number: '12-3140-0412345-00' },
      meta: { source: { reference: 'invoice 42' }, destination: { particulars: 'rent', reference: 'flat 3' } },
    };

    const created = await akahu.payments.create(token, order, { idempotencyKey: 'pay-once' });
    expect(created).toMatchObject({
      status: 'READY',
      final: false,
      amount: 12.5,
      from: from._id,
      sid: expect.any(String),
    });
    expect(created.meta.destination.particulars).toBe('rent');
    const replay = await akahu.payments.create(token, order, { idempotencyKey: 'pay-once' });
    expect(replay._id).toBe(created._id);
    const replayed = sandbox.requests({ method: 'POST', path: '/v1/payments' });
    expect(replayed).toHaveLength(2);
    await expect(
      akahu.payments.create(token, { ...order, amount: 13 }, { idempotencyKey: 'pay-once' }),
    ).rejects.toMatchObject({ status: 422 });

    const sent = await settled(setup, token, created._id);
    expect(sent).toMatchObject({ status: 'SENT', final: true });
    expect(sent.timeline.map((step) => step.status)).toEqual(['READY', 'SENT']);
    expect(sent.timeline[1]!.eta).toEqual(expect.any(String));

    // .42 waits for approval: cancellable, through the SDK's path (PUT /v1/payments/{id}).
    const waiting = await akahu.payments.create(token, { ...order, amount: 20.42 });
    expect((await settled(setup, token, waiting._id)).status).toBe('PENDING_APPROVAL');
    await akahu.payments.cancel(token, waiting._id);
    expect(await akahu.payments.get(token, waiting._id)).toMatchObject({
      status: 'CANCELLED',
      status_code: 'APP_CANCELLED',
      final: true,
    });
    await expect(akahu.payments.cancel(token, created._id)).rejects.toMatchObject({ status: 400 });

    const declined = await akahu.payments.create(token, { ...order, amount: 5.13 });
    expect(await settled(setup, token, declined._id)).toMatchObject({
      status: 'DECLINED',
      status_code: 'INSUFFICIENT_FUNDS',
    });

    const ird = await akahu.payments.createToIrd(token, {
      from: from._id,
      amount: 100,
      meta: { tax_number: '123-456-789', tax_type: 'INC', tax_period: '2026-03-31' },
    });
    expect(ird.to.name).toBe('Inland Revenue Department');

    const listed = await akahu.payments.list(token);
    expect(listed.map((p) => p._id).sort()).toEqual([created._id, waiting._id, declined._id, ird._id].sort());
    await expect(akahu.payments.get(token, 'payment_unknown')).rejects.toMatchObject({ status: 404 });
  });

  it('refuses bad payments with the platform\u2019s 400 messages', async () => {
    const setup = await sdkAgainstSandbox();
    const { akahu, sandbox } = setup;
    const token = await signedIn(setup);
    const userId = (await akahu.users.get(token))._id;
    const from = payableFrom(sandbox, userId);
    const good = { from: from._id, amount: 10, to: { name: 'Payee', account_number: '12-3140-0412345-00' } };
    const refusal = async (payment: object) =>
      akahu.payments.create(token, payment as typeof good).then(
        () => 'accepted',
        (error: { status: number; message: string }) => `${error.status} ${error.message}`,
      );
    expect(await refusal({ ...good, meta: { source: { code: 'bad*chars' } } })).toBe(
      '400 Invalid characters in `meta.source.code`',
    );
    expect(await refusal({ ...good, amount: 10_000.01 })).toBe('400 Payment above app limit');
    expect(await refusal({ ...good, amount: 1.234 })).toMatch(/^400 .*2 decimal places/);
    expect(await refusal({ ...good, to: { name: 'Payee', account_number: '12345' } })).toMatch(/^400 .*account_number/);
    const notPayable = sandbox
      .world()
      .accounts.find((a) => a.sandboxUserId === userId && !a.attributes.includes('PAYMENT_FROM'));
    if (notPayable)
      expect(await refusal({ ...good, from: notPayable._id })).toBe('400 from account is unable to make payments');
    await akahu.payments.create(token, { ...good, amount: 9_000 });
    await akahu.payments.create(token, { ...good, amount: 9_000 });
    expect(await refusal({ ...good, amount: 2_000.5 })).toBe('400 Payment above app daily limit');
  });

  it('creates, lists and reads transfers between the user\u2019s own accounts', async () => {
    const setup = await sdkAgainstSandbox();
    const { akahu, sandbox } = setup;
    const token = await signedIn(setup);
    const userId = (await akahu.users.get(token))._id;
    const own = sandbox.world().accounts.filter((a) => a.sandboxUserId === userId);
    const from = own.find((a) => a.attributes.includes('TRANSFER_FROM'))!;
    const to = own.find(
      (a) => a !== from && a.attributes.includes('TRANSFER_TO') && a.connection._id === from.connection._id,
    )!;
    const transfer = await akahu.transfers.create(token, { from: from._id, to: to._id, amount: 50 });
    expect(transfer).toMatchObject({ status: 'READY', from: from._id, to: to._id, amount: 50 });
    await sandbox.payments.waitForStatus(transfer._id, SETTLED);
    expect((await akahu.transfers.get(token, transfer._id)).status).toBe('SENT');
    expect((await akahu.transfers.list(token)).map((t) => t._id)).toEqual([transfer._id]);
    await expect(akahu.transfers.create(token, { from: from._id, to: from._id, amount: 1 })).rejects.toMatchObject({
      status: 400,
    });
    // Payments and transfers share a quota of 200 creations a minute per user (two used above; it
    // refills continuously, so a burst of 260 sees about 60 refused).
    const burst = await Promise.all(
      Array.from({ length: 260 }, () =>
        akahu.transfers.create(token, { from: from._id, to: to._id, amount: 1 }).then(
          () => 200,
          (error: { status: number }) => error.status,
        ),
      ),
    );
    const accepted = burst.filter((status) => status === 200).length;
    expect(accepted).toBeGreaterThanOrEqual(198);
    expect(accepted).toBeLessThan(215);
    expect(burst.filter((status) => status === 429)).toHaveLength(260 - accepted);
  });

  it('subscribes webhooks (with the real url and last_called_at), lists delivered events, and the SDK validates a delivery', async () => {
    const { url: webhookUrl, received } = await webhookReceiver();
    const setup = await sdkAgainstSandbox({ webhookUrl });
    const { akahu, sandbox } = setup;
    const token = await signedIn(setup);
    const userId = (await akahu.users.get(token))._id;

    const hookId = await akahu.webhooks.subscribe(token, { webhook_type: 'PAYMENT', state: 'my-state' });
    expect(hookId).toMatch(/^hook_/);
    await akahu.payments.create(token, {
      from: payableFrom(sandbox, userId)._id,
      amount: 3,
      to: { name: 'Payee', account_number: '12-3140-0412345-00' },
    });
    for (const status of ['READY', 'SENT'])
      await sandbox.deliveries.waitFor((record) => record.status === 'SENT' && record.payload.status === status);

    const hooks = await akahu.webhooks.list(token);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({ _id: hookId, state: 'my-state', url: webhookUrl });
    expect(hooks[0]!.last_called_at).toEqual(expect.any(String));

    const delivery = received[0]!;
    const payload = await akahu.webhooks.validateWebhook(
      String(delivery.headers['x-akahu-signing-key']),
      String(delivery.headers['x-akahu-signature']),
      delivery.body,
    );
    expect(payload).toMatchObject({ webhook_type: 'PAYMENT', webhook_code: 'UPDATE', state: 'my-state' });

    const events = await akahu.webhooks.listEvents({ status: 'SENT' });
    expect(events.length).toBeGreaterThanOrEqual(2);
    await akahu.webhooks.unsubscribe(token, hookId);
    expect(await akahu.webhooks.list(token)).toEqual([]);
  });

  it('lists connections with every field the SDK declares, new_connections_enabled included', async () => {
    const { akahu } = await sdkAgainstSandbox();
    const connections = await akahu.connections.list();
    expect(connections.length).toBeGreaterThan(0);
    for (const connection of connections)
      expect(connection).toEqual({
        _id: expect.stringMatching(/^conn_/),
        name: expect.any(String),
        logo: expect.any(String),
        connection_type: expect.stringMatching(/^(classic|official)$/),
        new_connections_enabled: expect.any(Boolean),
      });
    expect(await akahu.connections.get(connections[0]!._id)).toEqual(connections[0]);
  });

  it('lists a webhook subscription that was never called with last_called_at null (the key present)', async () => {
    const { url: webhookUrl } = await webhookReceiver();
    const setup = await sdkAgainstSandbox({ webhookUrl });
    const token = await signedIn(setup);
    const hookId = await setup.akahu.webhooks.subscribe(token, { webhook_type: 'ACCOUNT' });
    const [hook] = await setup.akahu.webhooks.list(token);
    expect(hook).toMatchObject({ _id: hookId, url: webhookUrl });
    expect(Object.hasOwn(hook!, 'last_called_at')).toBe(true);
    expect(hook!.last_called_at).toBeNull();
  });

  it('revokes a whole bank authorisation, and serves one-off identity results with name verification', async () => {
    const setup = await sdkAgainstSandbox();
    const { akahu } = setup;
    const token = await signedIn(setup);
    const before = await akahu.accounts.list(token);
    const authorisation = before[0]!._authorisation;
    await akahu.authorisations.revoke(token, authorisation);
    const after = await akahu.accounts.list(token);
    expect(after.some((account) => account._authorisation === authorisation)).toBe(false);
    expect(after.length).toBeLessThan(before.length);

    const code = await authorize(setup, 'ONEOFF');
    const identity = await akahu.identities.get(code);
    expect(identity).toMatchObject({ status: 'COMPLETE', accounts: expect.any(Array) });
    const holder = String((identity.accounts![0] as { holder: string }).holder);
    const family = holder.split(/\s+/).at(-1)!;
    const verified = await akahu.identities.verifyName(code, { family_name: family });
    expect(verified.sources.length).toBeGreaterThan(0);
    expect(['MATCH', 'PARTIAL_MATCH']).toContain(verified.sources[0]!.match_result);
  });
});
