import { EventEmitter } from 'node:events';
import { GraphQLError, type ExecutionResult, type FormattedExecutionResult, type GraphQLFormattedError } from 'graphql';
import { ErrorCode } from '../../graphql/errors.js';
import { CloseCode } from '../websocket/close-codes.js';

/** What a stream sends: a result, or the end of the stream with why (end of access, shutdown, a dropped subscriber). */
export type StreamFrame = { result: FormattedExecutionResult } | { end: GraphQLFormattedError[] };

export const coded = (
  message: string,
  code: string,
  extensions: Record<string, unknown> = {},
): GraphQLFormattedError => ({
  message,
  extensions: { ...extensions, code },
});

/** Why the registry ended a stream, as a coded error (the socket's close codes, in GraphQL's words). */
export function endingFor(code: number, reason: string): GraphQLFormattedError {
  if (code === CloseCode.SESSION_ENDED)
    return coded('The session ended (sign-out, revocation or expiry): sign in again.', ErrorCode.UNAUTHENTICATED, {
      reason: 'SESSION_ENDED',
    });
  if (code === CloseCode.GOING_AWAY)
    return coded(
      'The gateway is shutting down: subscribe again (with `after`) to resume.',
      ErrorCode.SERVICE_UNAVAILABLE,
    );
  return coded(reason, ErrorCode.INTERNAL_SERVER_ERROR);
}

/**
 * One open stream, as the session registry sees it (`close`, a `close` event): its frames are
 * the subscription's results until it ends by itself, by `close` (a coded last frame), or by
 * its client going away (`return()`).
 */
export class StreamHandle extends EventEmitter {
  private results: AsyncIterableIterator<ExecutionResult> | undefined;
  private ended: ((frame: StreamFrame) => void) | undefined;
  private readonly ending = new Promise<StreamFrame>((resolve) => (this.ended = resolve));
  private finished = false;

  constructor(
    private readonly format: (errors: readonly GraphQLError[]) => GraphQLFormattedError[],
    private readonly options: { onEventSent?: () => void },
  ) {
    super();
  }

  attach(results: AsyncIterableIterator<ExecutionResult>): void {
    this.results = results;
  }

  /** The stream never opened (refused, or ended at once): the registry forgets it. */
  release(): void {
    void this.finish();
  }

  close(code: number, reason: string): void {
    this.ended?.({ end: [endingFor(code, reason)] });
  }

  /** Ends the stream in `ms` (its credential lapses then), unless it ended before. */
  endAt(ms: number): void {
    const timer = setTimeout(
      () =>
        this.ended?.({
          end: [
            coded(
              'The access token expired: get a new one and subscribe again (with `after`).',
              ErrorCode.UNAUTHENTICATED,
              { reason: 'TOKEN_EXPIRED' },
            ),
          ],
        }),
      ms,
    );
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  }

  frames(): AsyncIterableIterator<StreamFrame> {
    const frames: AsyncIterableIterator<StreamFrame> = {
      next: async () => {
        if (this.finished) return { done: true, value: undefined };
        const frame = await Promise.race([this.nextResult(), this.ending]);
        if (frame === undefined || 'end' in frame) await this.finish();
        if (frame === undefined) return { done: true, value: undefined };
        if ('result' in frame) this.options.onEventSent?.();
        return { done: false, value: frame };
      },
      return: async () => {
        await this.finish();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => frames,
    };
    return frames;
  }

  /** The next result, masked as over the other transports; an error thrown ends the stream with it, coded. */
  private async nextResult(): Promise<StreamFrame | undefined> {
    try {
      const next = await this.results!.next();
      if (next.done) return undefined;
      const errors = next.value.errors ? this.format(next.value.errors) : undefined;
      return { result: errors ? { ...next.value, errors } : next.value };
    } catch (error) {
      const graphQLError =
        error instanceof GraphQLError ? error : new GraphQLError('stream failed', { originalError: error as Error });
      return { end: this.format([graphQLError]) };
    }
  }

  /** Once: the subscription's queue is freed and the registry forgets the stream. */
  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.ended?.({ end: [] });
    try {
      await this.results?.return?.();
    } finally {
      this.emit('close');
    }
  }
}
