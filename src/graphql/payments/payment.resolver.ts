import { Arg, Authorized, Ctx, GraphQLISODateTime, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { PlatformCreation } from '../../upstream/platform-types.js';
import { Permission } from '../authorization.js';
import type { GatewayContext } from '../context.js';
import { ErrorCode, gatewayError } from '../errors.js';
import { cancelFailure, creationFailure } from './creation-errors.js';
import {
  checkIdempotencyKey,
  invalidInputError,
  paymentRequestOf,
  transferRequestOf,
  type InputProblem,
} from './payment-validation.js';
import { CreatePaymentInput, CreateTransferInput } from './payment.input.js';
import { toPayment, toTransfer } from './payment.mapper.js';
import { Payment, PaymentCreation, Transfer, TransferCreation } from './payment.type.js';

const IDEMPOTENCY_KEY_DESCRIPTION =
  'Your key for this creation (1-200 printable characters). The same key replays the first result; with another input it is IDEMPOTENCY_CONFLICT. Omitted: the gateway derives one, so the same input again within PAYMENT_DEDUPE_WINDOW_SECONDS replays instead of paying twice.';

/**
 * One money-moving creation, the same for payments and transfers: the gateway's checks, the
 * idempotency key (the client's, or derived per user and input), one platform call per key however
 * many callers and instances ask at once (never retried; the others get its answer, or
 * IDEMPOTENCY_IN_PROGRESS while another instance's call is in flight), and the failure mapping
 * that never reports a possible creation as failed. `read` answers a key another request finished.
 */
async function createOnce<T extends { _id: string }>(
  context: GatewayContext,
  what: 'payment' | 'transfer',
  request: unknown,
  problems: InputProblem[],
  idempotencyKey: string | null | undefined,
  create: (upstreamKey: string) => Promise<PlatformCreation<T>>,
  read: (id: string) => Promise<T | undefined>,
): Promise<{ item: T; idempotencyKey: string; replayed: boolean }> {
  const clientKey = checkIdempotencyKey(idempotencyKey, problems);
  if (problems.length > 0) throw invalidInputError(problems);
  const key = await context.idempotencyKeys.keyFor(
    what === 'payment' ? 'createPayment' : 'createTransfer',
    request,
    clientKey,
  );
  try {
    const created = await context.idempotencyKeys.create(key, create, read);
    context.logger.info(
      { userId: context.user.id, [`${what}Id`]: created.item._id, replayed: created.replayed },
      `${what} created`,
    );
    return { item: created.item, idempotencyKey: key.key, replayed: created.replayed };
  } catch (error) {
    throw creationFailure(error, what, key.key);
  }
}

function range(start?: Date | null, end?: Date | null) {
  return { start: start?.toISOString(), end: end?.toISOString() };
}

/** Payments and transfers: read them, and create or cancel them behind the money-moving check. */
@Resolver()
export class PaymentResolver {
  @Query(() => [Payment], {
    description:
      'The user\u2019s payments created between `start` and `end` (the platform\u2019s default: the last 30 days).',
  })
  async payments(
    @Ctx() context: GatewayContext,
    @Arg('start', () => GraphQLISODateTime, { nullable: true }) start?: Date | null,
    @Arg('end', () => GraphQLISODateTime, { nullable: true }) end?: Date | null,
  ): Promise<Payment[]> {
    return (await context.userClient.listPayments(range(start, end))).map(toPayment);
  }

  @Query(() => Payment, { nullable: true, description: 'One payment by id; null when there is none.' })
  async payment(@Arg('id', () => ID) id: string, @Ctx() context: GatewayContext): Promise<Payment | null> {
    const payment = await context.userClient.getPayment(id);
    return payment ? toPayment(payment) : null;
  }

  @Query(() => [Transfer], {
    description: 'The user\u2019s transfers created between `start` and `end` (default: the last 30 days).',
  })
  async transfers(
    @Ctx() context: GatewayContext,
    @Arg('start', () => GraphQLISODateTime, { nullable: true }) start?: Date | null,
    @Arg('end', () => GraphQLISODateTime, { nullable: true }) end?: Date | null,
  ): Promise<Transfer[]> {
    return (await context.userClient.listTransfers(range(start, end))).map(toTransfer);
  }

  @Query(() => Transfer, { nullable: true, description: 'One transfer by id; null when there is none.' })
  async transfer(@Arg('id', () => ID) id: string, @Ctx() context: GatewayContext): Promise<Transfer | null> {
    const transfer = await context.userClient.getTransfer(id);
    return transfer ? toTransfer(transfer) : null;
  }

  @Authorized(Permission.MOVE_MONEY)
  @Mutation(() => PaymentCreation, {
    description:
      'Pays someone from one of the user\u2019s accounts (`POST /v1/payments`, with an Idempotency-Key). The payment starts READY; follow it with `paymentUpdated(paymentId)`. A lost answer is OUTCOME_UNKNOWN, never a failure.',
  })
  async createPayment(
    @Arg('input', () => CreatePaymentInput) input: CreatePaymentInput,
    @Ctx() context: GatewayContext,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DESCRIPTION })
    idempotencyKey?: string | null,
  ): Promise<PaymentCreation> {
    const problems: InputProblem[] = [];
    const request = paymentRequestOf(input, problems);
    const created = await createOnce(
      context,
      'payment',
      request,
      problems,
      idempotencyKey,
      (key) => context.userClient.createPayment(request, key),
      async (id) => (await context.userClient.getPayment(id)) ?? undefined,
    );
    return { payment: toPayment(created.item), idempotencyKey: created.idempotencyKey, replayed: created.replayed };
  }

  @Authorized(Permission.MOVE_MONEY)
  @Mutation(() => Payment, {
    description:
      'Cancels a payment that is not final yet (READY, PENDING_APPROVAL, PAUSED); returns it as it is now. Too late: BAD_USER_INPUT with the platform\u2019s reason. No answer in time: UPSTREAM_TIMEOUT (read the payment to see whether it was cancelled).',
  })
  async cancelPayment(@Arg('id', () => ID) id: string, @Ctx() context: GatewayContext): Promise<Payment> {
    try {
      await context.userClient.cancelPayment(id);
    } catch (error) {
      throw cancelFailure(error);
    }
    const payment = await context.userClient.getPayment(id);
    if (!payment) throw gatewayError(ErrorCode.NOT_FOUND, 'No such payment.');
    return toPayment(payment);
  }

  @Authorized(Permission.MOVE_MONEY)
  @Mutation(() => TransferCreation, {
    description:
      'Moves money between two of the user\u2019s own accounts (`POST /v1/transfers`, with an Idempotency-Key). Follow it with `transferUpdated(transferId)`.',
  })
  async createTransfer(
    @Arg('input', () => CreateTransferInput) input: CreateTransferInput,
    @Ctx() context: GatewayContext,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY_DESCRIPTION })
    idempotencyKey?: string | null,
  ): Promise<TransferCreation> {
    const problems: InputProblem[] = [];
    const request = transferRequestOf(input, problems);
    const created = await createOnce(
      context,
      'transfer',
      request,
      problems,
      idempotencyKey,
      (key) => context.userClient.createTransfer(request, key),
      async (id) => (await context.userClient.getTransfer(id)) ?? undefined,
    );
    return { transfer: toTransfer(created.item), idempotencyKey: created.idempotencyKey, replayed: created.replayed };
  }
}
