import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import { BodyTooLargeError, mediaType, readRawBody } from '@open-finance-gateway/common/http/read-body';
import type { RequestAuthenticator } from '../../auth/request-authentication.js';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { GatewayContext } from '../../graphql/context.js';
import type { RequestScope } from '../../lib/request-scope.js';
import type { OperationCore, PreparedOperation } from '../../operation-core/operation-core.js';
import { answerErrors, answerRefusal, csrfRefused } from '../edge/http-answers.js';
import { credentialsOf, type Credentials } from '../edge/http-credentials.js';
import type { ApolloAdapter } from './apollo.js';
import { coreDecides, operationRequestOf, preparedRequestFor } from './http-operation-request.js';

export interface GraphQLHttpHandlerOptions {
  core: OperationCore;
  apollo: ApolloAdapter;
  sessions: SessionManager;
  /** The session cookie or an access token, into a session (the one place every transport asks). */
  authenticator: RequestAuthenticator;
  maxBodyBytes: number;
  /** TRUSTED_DOCUMENTS: every request is admitted by the core (only the manifest's operations run). */
  trusted: boolean;
  /** Whether the client speaks Apollo's multipart subscription protocol. */
  acceptsMultipart(req: IncomingMessage): boolean;
  /** A prepared subscription over Apollo's multipart protocol, for a client that accepts it. */
  multipart(
    req: IncomingMessage,
    res: ServerResponse,
    session: Session,
    prepared: PreparedOperation,
    tokenExpiresAt: number | undefined,
  ): Promise<void>;
}

const ANSWERED = Symbol('answered');

/** The request's body: JSON when it says so, text otherwise, nothing for a GET; ANSWERED once refused. */
async function bodyOf(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): Promise<{ value: unknown } | typeof ANSWERED> {
  if (req.method !== 'POST') return { value: undefined };
  let raw: Buffer;
  try {
    raw = await readRawBody(req, maxBytes);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    answerRefusal(req, res, { kind: 'body-too-large', limitBytes: error.limitBytes });
    return ANSWERED;
  }
  if (mediaType(req) !== 'application/json') return { value: raw.toString('utf8') };
  try {
    return { value: JSON.parse(raw.toString('utf8')) };
  } catch {
    answerErrors(req, res, 400, [{ message: 'Request body is not valid JSON.', extensions: { code: 'BAD_REQUEST' } }]);
    return ANSWERED;
  }
}

function headerMapOf(req: IncomingMessage): HeaderMap {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

/**
 * GraphQL over HTTP on /graphql, a thin adapter: the edge (credentials, the body, CSRF), then the
 * operation core admits and prepares the operation; a subscription goes to the multipart stream,
 * anything else to Apollo with the prepared document.
 */
export function createGraphQLHttpHandler(options: GraphQLHttpHandlerOptions) {
  const { core } = options;
  return async (req: IncomingMessage, res: ServerResponse, url: URL, scope: RequestScope): Promise<void> => {
    const credentials = await credentialsOf(options.authenticator, req);
    if ('refusal' in credentials) return answerRefusal(req, res, credentials.refusal);
    const body = await bodyOf(req, res, options.maxBodyBytes);
    if (body === ANSWERED) return;
    if (csrfRefused(req)) return answerRefusal(req, res, { kind: 'cross-site' });
    const method = req.method ?? 'GET';
    const request = operationRequestOf(method, body.value, url);
    const multipart = method === 'POST' && options.acceptsMultipart(req);
    if (!request || !coreDecides(request, options.trusted))
      return answerWithApollo(options, req, res, { method, body: body.value, search: url.search }, credentials, scope);
    const prepared = core.prepare(request);
    if ('refused' in prepared) {
      const errors = core.refuse(multipart ? 'multipart' : 'http', prepared.refused, scope.log);
      return answerErrors(req, res, prepared.httpStatus, errors);
    }
    if (multipart && prepared.type === 'subscription')
      return options.multipart(req, res, credentials.session, prepared, credentials.tokenExpiresAt);
    const { body: preparedBody, search } = preparedRequestFor(method, body.value, url, prepared);
    return answerWithApollo(options, req, res, { method, body: preparedBody, search }, credentials, scope, prepared);
  };
}

/** Apollo runs the request (with the core's document, when prepared) in a context of its own. */
async function answerWithApollo(
  options: GraphQLHttpHandlerOptions,
  req: IncomingMessage,
  res: ServerResponse,
  request: Omit<HTTPGraphQLRequest, 'headers'>,
  { session, via }: Credentials,
  scope: RequestScope,
  prepared?: PreparedOperation,
): Promise<void> {
  let context: GatewayContext | undefined;
  const contextOnce = async () => (context ??= options.core.createContext(session, scope, req.headers.origin));
  await options.apollo.answer(res, { ...request, headers: headerMapOf(req) }, prepared?.document, contextOnce, () => {
    // Revocation (by the user, or a dead token) ended the session during this request.
    if (context?.session.ended && via === 'cookie') options.sessions.clearCookie(res);
  });
}
