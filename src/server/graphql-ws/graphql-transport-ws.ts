import { GraphQLError, type ExecutionResult, type FormattedExecutionResult, type GraphQLFormattedError } from 'graphql';
import {
  areGraphQLErrors,
  CloseCode,
  GRAPHQL_TRANSPORT_WS_PROTOCOL,
  MessageType,
  parseMessage,
  stringifyMessage,
  type Message,
  type SubscribePayload,
} from 'graphql-ws';
import type { Logger } from '@open-finance-gateway/common/logger';
import { nextFrame } from './next-frames.js';

/**
 * What the protocol needs of a socket, through one object that serves every socket (a closure
 * per socket would cost memory on each idle one). The `ws` adapter implements it over `ws`; a
 * test implements it over an array of frames.
 */
export interface SocketWire<S> {
  /** The subprotocol the client asked for. */
  protocol(socket: S): string;
  isOpen(socket: S): boolean;
  /** Writes a frame; `written` once it is, with the error when it cannot be. A closed socket: at once. */
  send(socket: S, data: string, written: (error?: Error) => void): void;
  close(socket: S, code: number, reason: string): void;
}

/** What runs for a `subscribe` message: a query or mutation's one result, or a subscription's results. */
export interface Runnable {
  run(): Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>>;
}

/** What the gateway decides in the protocol: graphql-ws's server hooks of the same names. */
export interface ProtocolHooks<S, E, O extends Runnable> {
  /** A socket that sends no `connection_init` within this is closed with 4408. */
  connectionInitWaitTimeout: number;
  /** False: the socket is closed with 4403, unless the hook closed it itself. */
  onConnect(connection: Connection<S, E>): Promise<boolean>;
  onSubscribe(
    connection: Connection<S, E>,
    id: string,
    payload: SubscribePayload,
  ): Promise<O | readonly GraphQLError[]>;
  /** The `error` frame's payload: errors refused before the operation ran, or its results' failure. */
  onError(errors: readonly GraphQLError[]): GraphQLFormattedError[];
  /** Called before each `next` frame; what it returns replaces the result in the frame. */
  onNext(connection: Connection<S, E>, operation: O, result: ExecutionResult): FormattedExecutionResult | undefined;
}

/** One socket's protocol state: graphql-ws's context, plus the handshake timer. */
export class Connection<S, E> {
  connectionInitReceived = false;
  acknowledged = false;
  connectionParams: Record<string, unknown> | undefined = undefined;
  subscriptions: Record<string, AsyncIterableIterator<ExecutionResult> | null> = Object.create(null) as Record<
    string,
    null
  >;
  initWait: NodeJS.Timeout | undefined = undefined;

  constructor(
    readonly socket: S,
    /** What the transport keeps with the socket (its request, its session). */
    readonly extra: E,
  ) {}
}

/** A subscription's results, as the connection holds them under its id. */
type Results = AsyncIterableIterator<ExecutionResult>;

const isAsyncIterable = (value: unknown): value is Results =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * The graphql-transport-ws protocol as a state machine over `SocketWire`: what graphql-ws's
 * `makeServer` does, frame for frame and close code for close code, with less held per idle
 * socket. A socket is one Connection; a subscription is its results and three callbacks waiting
 * on a promise (no async function stays suspended while it is idle). A `next` frame is built from
 * its result's JSON, serialised once per result (next-frames.ts). graphql-ws's own parser,
 * validator and serialiser handle every message.
 */
export class GraphQLTransportWs<S, E, O extends Runnable> {
  private readonly isProd = process.env.NODE_ENV === 'production';

  constructor(
    private readonly wire: SocketWire<S>,
    private readonly hooks: ProtocolHooks<S, E, O>,
    private readonly logger: Logger,
  ) {}

  /** A socket opened: its connection, or undefined when it asked for another subprotocol (closed 4406). */
  opened(socket: S, extra: E): Connection<S, E> | undefined {
    if (this.wire.protocol(socket) !== GRAPHQL_TRANSPORT_WS_PROTOCOL) {
      this.wire.close(socket, CloseCode.SubprotocolNotAcceptable, 'Subprotocol not acceptable');
      return undefined;
    }
    const connection = new Connection(socket, extra);
    const wait = this.hooks.connectionInitWaitTimeout;
    if (wait > 0 && Number.isFinite(wait))
      connection.initWait = setTimeout(() => this.closeUnlessInitialised(connection), wait);
    return connection;
  }

  /** A message arrived; a failure while handling it closes the socket with 4500. */
  receive(connection: Connection<S, E>, data: string): void {
    this.handle(connection, data).catch((error: unknown) => this.failed(connection, error));
  }

  /** The socket closed: its subscriptions end. */
  closed(connection: Connection<S, E>): void {
    clearTimeout(connection.initWait);
    const open = Object.values(connection.subscriptions);
    connection.subscriptions = Object.create(null) as Connection<S, E>['subscriptions'];
    for (const results of open) this.returnQuietly(results);
  }

  /** What graphql-ws's adapter does on an error: close with 4500 (the message only outside production). */
  closeOnError(connection: Connection<S, E>, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    // A close reason may take 123 bytes (not characters).
    const reason = this.isProd || Buffer.byteLength(message) > 123 ? 'Internal server error' : message;
    this.wire.close(connection.socket, CloseCode.InternalServerError, reason);
  }

  private failed(connection: Connection<S, E>, error: unknown): void {
    this.logger.error({ err: error }, 'websocket: internal error while handling a message');
    this.closeOnError(connection, error);
  }

  private closeUnlessInitialised(connection: Connection<S, E>): void {
    connection.initWait = undefined;
    if (!connection.connectionInitReceived)
      this.wire.close(
        connection.socket,
        CloseCode.ConnectionInitialisationTimeout,
        'Connection initialisation timeout',
      );
  }

  /** Settles once the frame is written, and at once on a closed socket. */
  private send(connection: Connection<S, E>, data: string): Promise<void> {
    return new Promise((resolve, reject) =>
      this.wire.send(connection.socket, data, (error) => (error ? reject(error) : resolve())),
    );
  }

  /**
   * Ends results the socket no longer wants. A `return()` that rejects is logged, not left
   * unhandled: an unhandled rejection would end the process.
   */
  private returnQuietly(results: AsyncIterator<ExecutionResult> | null | undefined): void {
    if (!results?.return) return;
    results
      .return()
      .catch((error: unknown) => this.logger.warn({ err: error }, 'websocket: ending a subscription failed'));
  }

  private async handle(connection: Connection<S, E>, data: string): Promise<void> {
    let message: Message;
    try {
      message = parseMessage(data);
    } catch {
      return this.wire.close(connection.socket, CloseCode.BadRequest, 'Invalid message received');
    }
    switch (message.type) {
      case MessageType.ConnectionInit:
        return this.initialise(connection, message.payload);
      case MessageType.Ping:
        return this.send(
          connection,
          stringifyMessage(
            message.payload ? { type: MessageType.Pong, payload: message.payload } : { type: MessageType.Pong },
          ),
        );
      case MessageType.Pong:
        return;
      case MessageType.Subscribe:
        return this.subscribe(connection, message.id, message.payload);
      case MessageType.Complete: {
        const results = connection.subscriptions[message.id];
        delete connection.subscriptions[message.id];
        await results?.return?.();
        return;
      }
      default:
        throw new Error(`Unexpected message of type ${message.type} received`);
    }
  }

  private async initialise(connection: Connection<S, E>, payload: unknown): Promise<void> {
    const { socket } = connection;
    if (connection.connectionInitReceived)
      return this.wire.close(socket, CloseCode.TooManyInitialisationRequests, 'Too many initialisation requests');
    connection.connectionInitReceived = true;
    clearTimeout(connection.initWait);
    connection.initWait = undefined;
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload))
      connection.connectionParams = payload as Record<string, unknown>;
    if ((await this.hooks.onConnect(connection)) === false) {
      if (this.wire.isOpen(socket)) this.wire.close(socket, CloseCode.Forbidden, 'Forbidden');
      return;
    }
    connection.acknowledged = true;
    return this.send(connection, stringifyMessage({ type: MessageType.ConnectionAck }));
  }

  private sendError(connection: Connection<S, E>, id: string, errors: readonly GraphQLError[]): Promise<void> {
    return this.send(
      connection,
      stringifyMessage({ id, type: MessageType.Error, payload: this.hooks.onError(errors) }),
    );
  }

  private async subscribe(connection: Connection<S, E>, id: string, payload: SubscribePayload): Promise<void> {
    const { socket } = connection;
    if (!connection.acknowledged) return this.wire.close(socket, CloseCode.Unauthorized, 'Unauthorized');
    if (id in connection.subscriptions)
      return this.wire.close(socket, CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`);
    connection.subscriptions[id] = null;
    let forwarding = false;
    try {
      const operation = await this.hooks.onSubscribe(connection, id, payload);
      if (areGraphQLErrors(operation))
        return id in connection.subscriptions ? await this.sendError(connection, id, operation) : undefined;
      const result = await operation.run();
      if (isAsyncIterable(result)) {
        if (!(id in connection.subscriptions)) return this.returnQuietly(result);
        connection.subscriptions[id] = result;
        forwarding = true;
        return this.forward(connection, id, operation, result);
      }
      if (id in connection.subscriptions)
        await this.send(connection, nextFrame(id, result, this.hooks.onNext(connection, operation, result)));
      if (id in connection.subscriptions)
        await this.send(connection, stringifyMessage({ id, type: MessageType.Complete }));
    } finally {
      if (!forwarding) delete connection.subscriptions[id];
    }
  }

  /**
   * The id stays taken until the last frame (complete or error) is written, as in graphql-ws, and
   * only these results': a client that completed the id and subscribed it again keeps the new one.
   * A last frame that could not be made or written is reported as graphql-ws's adapter does (4500).
   */
  private freeAfter(connection: Connection<S, E>, id: string, results: Results, last: Promise<void>): void {
    const free = () => {
      if (connection.subscriptions[id] === results) delete connection.subscriptions[id];
    };
    last.then(free, (error: unknown) => {
      free();
      this.failed(connection, error);
    });
  }

  /** The results ended: `complete`, unless the client completed them or the socket closed. */
  private finish(connection: Connection<S, E>, id: string, results: Results): void {
    const notify = connection.subscriptions[id] === results;
    const complete = notify ? this.send(connection, stringifyMessage({ id, type: MessageType.Complete })) : undefined;
    this.freeAfter(connection, id, results, complete ?? Promise.resolve());
  }

  /** The results failed: an `error` frame with its message, as graphql-ws wraps it. */
  private fail(connection: Connection<S, E>, id: string, results: Results, error: unknown): void {
    const original = error instanceof Error ? error : new Error(String(error));
    const wrapped = new GraphQLError(original.message, { originalError: original });
    this.freeAfter(
      connection,
      id,
      results,
      Promise.resolve().then(() => this.sendError(connection, id, [wrapped])),
    );
  }

  /** A frame that could not be made or written leaves the loop, as leaving `for await` does: the results are returned. */
  private abandon(connection: Connection<S, E>, id: string, results: Results, events: Results, error: unknown): void {
    this.returnQuietly(events);
    this.fail(connection, id, results, error);
  }

  /**
   * Sends each result of a subscription, waiting for each frame to be written before asking for
   * the next, then `complete`. Three callbacks made once per subscription, nothing per event.
   */
  private forward(connection: Connection<S, E>, id: string, operation: O, results: Results): void {
    const events = results[Symbol.asyncIterator]() as Results;
    const failed = (error: unknown): void => this.fail(connection, id, results, error);
    const written = (error?: Error): void => {
      if (error) return this.abandon(connection, id, results, events, error);
      events.next().then(deliver, failed);
    };
    const deliver = (step: IteratorResult<ExecutionResult>): void => {
      if (step.done) return this.finish(connection, id, results);
      let frame: string;
      try {
        frame = nextFrame(id, step.value, this.hooks.onNext(connection, operation, step.value));
      } catch (error) {
        return this.abandon(connection, id, results, events, error);
      }
      this.wire.send(connection.socket, frame, written);
    };
    written();
  }
}
