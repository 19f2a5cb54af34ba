import type { IncomingMessage } from 'node:http';
import {
  execute,
  getOperationAST,
  GraphQLError,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
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
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '@open-finance-gateway/common/logger';
import { nextFrame } from './next-frames.js';
import type { SocketContext } from './socket-operations.js';

/** What the gateway decides in the protocol: graphql-ws's server hooks of the same names. */
export interface ProtocolHooks {
  /** A socket that sends no `connection_init` within this is closed with 4408. */
  connectionInitWaitTimeout: number;
  onConnect(ctx: SocketContext): Promise<boolean>;
  onSubscribe(
    ctx: SocketContext,
    id: string,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]>;
  subscribe(args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
  /** The `error` frame's payload: errors refused before the operation ran, or its stream's failure. */
  onError(errors: readonly GraphQLError[]): GraphQLFormattedError[];
  /** Called before each `next` frame; what it returns replaces the result in the frame. */
  onNext(ctx: SocketContext, args: ExecutionArgs, result: ExecutionResult): FormattedExecutionResult | undefined;
}

/** A socket's protocol state; graphql-ws's context, plus the handshake timer. */
interface SocketState {
  connectionInitReceived: boolean;
  acknowledged: boolean;
  connectionParams?: Record<string, unknown>;
  subscriptions: Record<string, AsyncIterableIterator<ExecutionResult> | null>;
  extra: { socket: WebSocket; request: IncomingMessage; session?: SocketContext['extra']['session'] };
  initWait: NodeJS.Timeout | undefined;
}

/** A subscription's results, as the socket's state holds them under its id. */
type Streamed = AsyncIterableIterator<ExecutionResult>;

function isAsyncIterable(value: unknown): value is AsyncIterableIterator<ExecutionResult> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** graphql-ws's ws adapter's promise around `send`: settles once the frame is written, and at once on a closed socket. */
function send(socket: WebSocket, data: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.readyState !== socket.OPEN) return resolve();
    socket.send(data, (error) => (error ? reject(error) : resolve()));
  });
}

function closeUnlessInitialised(state: SocketState): void {
  state.initWait = undefined;
  if (!state.connectionInitReceived)
    state.extra.socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
}

/**
 * The graphql-transport-ws protocol over `ws`: what graphql-ws's `makeServer` and its `ws` adapter
 * do, frame for frame and close code for close code, with less held per idle socket. Their state
 * per socket (a context, a handful of closures, an async message listener) and per subscription
 * (a message handler suspended in `for await` for the subscription's life, and the listener
 * awaiting it) held about 2.4 KB more per idle subscribed socket than this (heap snapshots,
 * docs/performance.md): here a socket is one state object reached through a WeakMap by listeners
 * shared by every socket, and a subscription is its iterator and three callbacks that wait on a
 * promise. A `next` frame is built from its result's JSON, serialised once per result
 * (next-frames.ts). graphql-ws's own parser, validator and serialiser handle every other message.
 */
export function serveGraphQLTransportWs(wss: WebSocketServer, hooks: ProtocolHooks, logger: Logger): void {
  const isProd = process.env.NODE_ENV === 'production';
  const states = new WeakMap<WebSocket, SocketState>();

  /** What graphql-ws's adapter does on an error: the socket closes with 4500 (the message only outside production). */
  function closeOnError(socket: WebSocket, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    // A close reason may take 123 bytes (not characters): ws throws on a longer one.
    socket.close(
      CloseCode.InternalServerError,
      isProd || Buffer.byteLength(message) > 123 ? 'Internal server error' : message,
    );
  }

  /** `ws` reports what the client did wrong (a frame too large or malformed). */
  function onSocketError(this: WebSocket, error: Error): void {
    logger.warn({ err: error }, 'websocket error');
    closeOnError(this, error);
  }

  function failedHandling(socket: WebSocket, error: unknown): void {
    logger.error({ err: error }, 'websocket: internal error while handling a message');
    closeOnError(socket, error);
  }

  function onMessage(this: WebSocket, data: RawData): void {
    const state = states.get(this);
    if (state) handle(state, String(data)).catch((error: unknown) => failedHandling(this, error));
  }

  /**
   * Ends a stream the socket no longer wants. A `return()` that rejects is logged, not left
   * unhandled: an unhandled rejection would end the process.
   */
  function returnQuietly(iterator: AsyncIterator<ExecutionResult> | null | undefined): void {
    if (!iterator?.return) return;
    iterator.return().catch((error: unknown) => logger.warn({ err: error }, 'websocket: ending a subscription failed'));
  }

  function onClose(this: WebSocket): void {
    const state = states.get(this);
    if (!state) return;
    clearTimeout(state.initWait);
    const open = Object.values(state.subscriptions);
    state.subscriptions = Object.create(null) as SocketState['subscriptions'];
    for (const subscription of open) returnQuietly(subscription);
  }

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    socket.on('error', onSocketError);
    if (socket.protocol !== GRAPHQL_TRANSPORT_WS_PROTOCOL) {
      socket.close(CloseCode.SubprotocolNotAcceptable, 'Subprotocol not acceptable');
      return;
    }
    const state: SocketState = {
      connectionInitReceived: false,
      acknowledged: false,
      connectionParams: undefined,
      subscriptions: Object.create(null) as SocketState['subscriptions'],
      extra: { socket, request, session: undefined },
      initWait: undefined,
    };
    if (hooks.connectionInitWaitTimeout > 0 && Number.isFinite(hooks.connectionInitWaitTimeout))
      state.initWait = setTimeout(closeUnlessInitialised, hooks.connectionInitWaitTimeout, state);
    states.set(socket, state);
    socket.on('message', onMessage);
    socket.on('close', onClose);
  });

  async function handle(state: SocketState, data: string): Promise<void> {
    const socket = state.extra.socket;
    let message: Message;
    try {
      message = parseMessage(data);
    } catch {
      return socket.close(CloseCode.BadRequest, 'Invalid message received');
    }
    switch (message.type) {
      case MessageType.ConnectionInit: {
        if (state.connectionInitReceived)
          return socket.close(CloseCode.TooManyInitialisationRequests, 'Too many initialisation requests');
        state.connectionInitReceived = true;
        clearTimeout(state.initWait);
        state.initWait = undefined;
        const { payload } = message;
        if (typeof payload === 'object' && payload !== null && !Array.isArray(payload))
          state.connectionParams = payload;
        if ((await hooks.onConnect(state)) === false) return socket.close(CloseCode.Forbidden, 'Forbidden');
        state.acknowledged = true;
        return send(socket, stringifyMessage({ type: MessageType.ConnectionAck }));
      }
      case MessageType.Ping:
        return send(
          socket,
          stringifyMessage(
            message.payload ? { type: MessageType.Pong, payload: message.payload } : { type: MessageType.Pong },
          ),
        );
      case MessageType.Pong:
        return;
      case MessageType.Subscribe:
        return subscribe(state, message.id, message.payload);
      case MessageType.Complete: {
        const subscription = state.subscriptions[message.id];
        delete state.subscriptions[message.id];
        await subscription?.return?.();
        return;
      }
      default:
        throw new Error(`Unexpected message of type ${message.type} received`);
    }
  }

  function sendError(state: SocketState, id: string, errors: readonly GraphQLError[]): Promise<void> {
    return send(state.extra.socket, stringifyMessage({ id, type: MessageType.Error, payload: hooks.onError(errors) }));
  }

  function sendNext(state: SocketState, id: string, args: ExecutionArgs, result: ExecutionResult): string {
    return nextFrame(id, result, hooks.onNext(state, args, result));
  }

  async function subscribe(state: SocketState, id: string, payload: SubscribePayload): Promise<void> {
    const socket = state.extra.socket;
    if (!state.acknowledged) return socket.close(CloseCode.Unauthorized, 'Unauthorized');
    if (id in state.subscriptions)
      return socket.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`);
    state.subscriptions[id] = null;
    let streaming = false;
    try {
      const prepared = await hooks.onSubscribe(state, id, payload);
      if (areGraphQLErrors(prepared))
        return id in state.subscriptions ? await sendError(state, id, prepared) : undefined;
      if (Array.isArray(prepared))
        throw new Error('Invalid return value from onSubscribe hook, expected an array of GraphQLError objects');
      const args = prepared;
      const operation = getOperationAST(args.document, args.operationName);
      if (!operation)
        return id in state.subscriptions
          ? await sendError(state, id, [new GraphQLError('Unable to identify operation')])
          : undefined;
      const result = operation.operation === 'subscription' ? await hooks.subscribe(args) : await execute(args);
      if (isAsyncIterable(result)) {
        if (!(id in state.subscriptions)) {
          returnQuietly(result);
          return;
        }
        state.subscriptions[id] = result;
        streaming = true;
        return stream(state, id, args, result);
      }
      if (id in state.subscriptions) await send(socket, sendNext(state, id, args, result));
      if (id in state.subscriptions) await send(socket, stringifyMessage({ id, type: MessageType.Complete }));
    } finally {
      if (!streaming) delete state.subscriptions[id];
    }
  }

  /**
   * The id stays taken until the last frame (complete or error) is written, as in graphql-ws, and
   * only this stream's: a client that completed the id and subscribed it again keeps the new one.
   * A last frame that could not be made or written is reported as graphql-ws's adapter does (4500).
   */
  function release(state: SocketState, id: string, results: Streamed, last: Promise<void>): void {
    const free = () => {
      if (state.subscriptions[id] === results) delete state.subscriptions[id];
    };
    last.then(free, (error: unknown) => {
      free();
      failedHandling(state.extra.socket, error);
    });
  }

  /** The stream ended: `complete`, unless the client completed it or the socket closed. */
  function finish(state: SocketState, id: string, results: Streamed): void {
    const notify = state.subscriptions[id] === results;
    release(
      state,
      id,
      results,
      notify ? send(state.extra.socket, stringifyMessage({ id, type: MessageType.Complete })) : Promise.resolve(),
    );
  }

  /** The stream failed: an `error` frame with its message, as graphql-ws wraps it. */
  function fail(state: SocketState, id: string, results: Streamed, error: unknown): void {
    const original = error instanceof Error ? error : new Error(String(error));
    release(
      state,
      id,
      results,
      Promise.resolve().then(() =>
        sendError(state, id, [new GraphQLError(original.message, { originalError: original })]),
      ),
    );
  }

  /** A frame that could not be made or written leaves the loop, as leaving `for await` does: the stream is returned. */
  function abandon(
    state: SocketState,
    id: string,
    results: Streamed,
    events: AsyncIterator<ExecutionResult>,
    error: unknown,
  ): void {
    returnQuietly(events);
    fail(state, id, results, error);
  }

  /**
   * Sends each result of a subscription, waiting for each frame to be written before asking for
   * the next, then `complete`. No async function stays suspended while the subscription is idle:
   * it waits on its iterator's promise, with three callbacks made once per subscription.
   */
  function stream(
    state: SocketState,
    id: string,
    args: ExecutionArgs,
    results: AsyncIterableIterator<ExecutionResult>,
  ): void {
    const events = results[Symbol.asyncIterator]();
    const failed = (error: unknown): void => fail(state, id, results, error);
    const written = (error?: Error): void => {
      if (error) return abandon(state, id, results, events, error);
      events.next().then(deliver, failed);
    };
    const deliver = (step: IteratorResult<ExecutionResult>): void => {
      if (step.done) return finish(state, id, results);
      const socket = state.extra.socket;
      let frame: string;
      try {
        frame = sendNext(state, id, args, step.value);
      } catch (error) {
        return abandon(state, id, results, events, error);
      }
      if (socket.readyState !== socket.OPEN) return written();
      socket.send(frame, written);
    };
    written();
  }
}
