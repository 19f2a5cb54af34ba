import type { FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import type { Session } from '../../auth/session-manager.js';
import type { LiveOperations } from '../../operation-core/live-operations.js';
import type { OperationCore, PreparedOperation } from '../../operation-core/operation-core.js';
import { operationOutcome } from '../../operation-core/operation-telemetry.js';
import { httpRefusal } from '../edge/refusal-table.js';
import { SubscriptionStream, type StreamFrame } from './subscription-stream.js';

export type { StreamFrame };

/** The HTTP transports a subscription can stream over (the `transport` label of the metrics). */
type StreamTransport = 'multipart' | 'sse';

export interface SubscriptionStreamsOptions {
  transport: StreamTransport;
  core: OperationCore;
  /** Shared with the sockets: a stream counts against the same caps and ends the same way. */
  live: LiveOperations;
  /** Told when a result is handed to the client (metrics). */
  onEventSent?: () => void;
}

/** What opening a stream came to. */
export type StreamOpening =
  /** Refused before it ran: the HTTP status, its headers and the coded errors. */
  | { kind: 'refused'; status: number; headers: Record<string, string>; errors: GraphQLFormattedError[] }
  /** Ran and ended at once (a cursor that cannot be resumed from): one result. */
  | { kind: 'result'; result: FormattedExecutionResult }
  /** Open: the frames until the stream ends; `return()` (client gone) frees the subscription. */
  | { kind: 'stream'; frames: AsyncIterableIterator<StreamFrame> };

/**
 * Subscriptions streamed over one HTTP response each (Apollo's multipart protocol, or graphql-sse),
 * through the operation core like every other transport: the stream is a live operation of its
 * session (the caps per session and per user, its end with the session, the access token's
 * expiry or shutdown), each event executes with a context of its own, and what ends it is told in
 * the refusal table's coded errors as its last frame.
 */
export function createSubscriptionStreams(options: SubscriptionStreamsOptions) {
  const { core, live, transport } = options;
  const open = new Set<SubscriptionStream>();
  const hooks = {
    format: (errors: Parameters<OperationCore['format']>[0]) => core.format(errors),
    onEventSent: options.onEventSent,
    onFinished: (stream: SubscriptionStream) => {
      open.delete(stream);
      live.remove(stream);
    },
  };
  const refused = (status: number, errors: GraphQLFormattedError[], headers = {}): StreamOpening => {
    core.count(transport, 'unknown', operationOutcome(errors));
    return { kind: 'refused', status, headers, errors };
  };

  /**
   * Opens a prepared subscription for the session. `tokenExpiresAt`: when the access token the
   * stream was opened with expires (it ends then, as a socket does); undefined for a cookie.
   */
  async function openStream(
    session: Session,
    prepared: PreparedOperation,
    tokenExpiresAt?: number,
  ): Promise<StreamOpening> {
    // Counted at once, before anything is awaited: concurrent requests cannot pass the cap together.
    const stream = new SubscriptionStream(session, hooks);
    const ending = live.admit(session, stream, tokenExpiresAt);
    if (ending) {
      const { status, headers, errors } = httpRefusal(ending);
      return refused(status, errors, headers);
    }
    open.add(stream);
    try {
      const started = await core.start(session, prepared, transport);
      if ('refused' in started) {
        stream.dispose();
        return refused(started.httpStatus, core.format(started.refused));
      }
      const outcome = await started.operation.run();
      if (!(Symbol.asyncIterator in outcome)) {
        stream.dispose();
        const errors = outcome.errors ? core.format(outcome.errors) : undefined;
        return { kind: 'result', result: errors ? { ...outcome, errors } : outcome };
      }
      stream.attach(outcome);
    } catch (error) {
      stream.dispose();
      throw error;
    }
    return { kind: 'stream', frames: stream.frames() };
  }

  return {
    open: openStream,
    get openStreams() {
      return open.size;
    },
  };
}

export type SubscriptionStreams = ReturnType<typeof createSubscriptionStreams>;
