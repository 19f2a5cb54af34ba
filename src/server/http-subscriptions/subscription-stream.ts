import { GraphQLError, type ExecutionResult, type FormattedExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { Session } from '../../auth/session-manager.js';
import type { Ending } from '../../operation-core/endings.js';
import type { LiveOperation } from '../../operation-core/live-operations.js';
import { httpRefusal } from '../edge/refusal-table.js';

/** What a stream sends: a result, or its end with why (end of access, shutdown, a dropped subscriber). */
export type StreamFrame = { result: FormattedExecutionResult } | { end: GraphQLFormattedError[] };

export interface SubscriptionStreamHooks {
  /** Reported and masked, as over every transport. */
  format(errors: readonly GraphQLError[]): GraphQLFormattedError[];
  /** Told when a result is handed to the client (metrics). */
  onEventSent?: () => void;
  /** Told once, when it is over (it no longer counts against the caps). */
  onFinished(stream: SubscriptionStream): void;
}

/**
 * One subscription over one HTTP response (multipart or graphql-sse), as a live operation: its
 * frames are the subscription's results until it ends by itself, by `end` (the ending's coded
 * errors are its last frame), or by its client going away (`return()` on its frames).
 */
export class SubscriptionStream implements LiveOperation {
  private results: AsyncIterableIterator<ExecutionResult> | undefined;
  private ended: ((frame: StreamFrame) => void) | undefined;
  private readonly ending = new Promise<StreamFrame>((resolve) => (this.ended = resolve));
  private finished = false;

  constructor(
    readonly session: Session,
    private readonly hooks: SubscriptionStreamHooks,
  ) {}

  attach(results: AsyncIterableIterator<ExecutionResult>): void {
    this.results = results;
  }

  /** Ends it with the ending's coded errors as its last frame; only the first ending counts. */
  end(ending: Ending): void {
    this.ended?.({ end: httpRefusal(ending).errors });
  }

  /** It never opened (refused, or answered at once): nothing of it stays counted. */
  dispose(): void {
    void this.finish();
  }

  frames(): AsyncIterableIterator<StreamFrame> {
    const frames: AsyncIterableIterator<StreamFrame> = {
      next: async () => {
        if (this.finished) return { done: true, value: undefined };
        const frame = await Promise.race([this.nextResult(), this.ending]);
        if (frame === undefined || 'end' in frame) await this.finish();
        if (frame === undefined) return { done: true, value: undefined };
        if ('result' in frame) this.hooks.onEventSent?.();
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
      const errors = next.value.errors ? this.hooks.format(next.value.errors) : undefined;
      return { result: errors ? { ...next.value, errors } : next.value };
    } catch (error) {
      const graphQLError =
        error instanceof GraphQLError ? error : new GraphQLError('stream failed', { originalError: error as Error });
      return { end: this.hooks.format([graphQLError]) };
    }
  }

  /** Once: the subscription's queue is freed and the stream no longer counts. */
  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.ended?.({ end: [] });
    try {
      await this.results?.return?.();
    } finally {
      this.hooks.onFinished(this);
    }
  }
}
