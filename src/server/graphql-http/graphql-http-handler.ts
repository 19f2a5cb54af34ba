import type { IncomingMessage, ServerResponse } from 'node:http';
import { HeaderMap, type ApolloServer } from '@apollo/server';
import { BodyTooLargeError, mediaType, readRawBody } from '@open-finance-gateway/common/http/read-body';
import { sendJson } from '@open-finance-gateway/common/http/respond';
import type { RequestAuthenticator } from '../../auth/request-authentication.js';
import type { Session, SessionManager } from '../../auth/session-manager.js';
import type { GatewayContext } from '../../graphql/context.js';
import { ErrorCode } from '../../graphql/errors.js';
import type { DocumentRequest, TrustedDocuments } from '../../graphql/trusted-documents.js';
import type { RequestScope } from '../../lib/request-scope.js';

export interface GraphQLHttpHandlerOptions {
  apollo: ApolloServer<GatewayContext>;
  sessions: SessionManager;
  /** The session cookie or an access token, into a session (the one place every transport asks). */
  authenticator: RequestAuthenticator;
  /** `origin`: the request's `Origin` header (the links in the context return there when allowed). */
  createContext: (session: Session, scope: RequestScope, origin: string | undefined) => GatewayContext;
  maxBodyBytes: number;
  /** TRUSTED_DOCUMENTS: only the manifest's operations reach Apollo. */
  trustedDocuments?: TrustedDocuments;
  /** Told of each operation refused here, before Apollo (Apollo's plugin counts the rest). */
  onOperation?: (type: string, outcome: string) => void;
  /**
   * Subscriptions over HTTP (Apollo's multipart protocol): answers the request and returns true
   * when it is one, else false and Apollo answers it.
   */
  streamSubscription?: (
    req: IncomingMessage,
    res: ServerResponse,
    session: Session,
    body: unknown,
    /** When the access token the request came with expires (the stream ends then); undefined for a cookie. */
    endsAt: number | undefined,
  ) => Promise<boolean>;
}

function graphQLErrorBody(message: string, code: string) {
  return { errors: [{ message, extensions: { code } }] };
}

/**
 * Errors answered before Apollo runs use the media type the client asked for: with
 * `application/graphql-response+json` (Apollo Client 4, urql) a 4xx body is read as a GraphQL
 * result, so the client sees UNAUTHENTICATED rather than only "status code 401".
 */
function errorHeaders(req: IncomingMessage, extra: Record<string, string> = {}): Record<string, string> {
  const wantsGraphQLResponse = (req.headers.accept ?? '').includes('application/graphql-response+json');
  return {
    ...(wantsGraphQLResponse ? { 'content-type': 'application/graphql-response+json; charset=utf-8' } : {}),
    ...extra,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function jsonOrUndefined(text: string | null): unknown {
  try {
    return text === null ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * With TRUSTED_DOCUMENTS, before Apollo parses anything: the shared decision, then the request as
 * Apollo's persisted-query protocol (the id alone, answered from its pre-filled cache). GraphQL over
 * HTTP's `documentId` becomes that extension; a text, even an admitted one, is not passed on.
 */
function trustedRequest(trusted: TrustedDocuments, method: string, body: unknown, url: URL) {
  const params = new URLSearchParams(url.search);
  const fields: DocumentRequest =
    method === 'POST'
      ? isRecord(body)
        ? body
        : {}
      : {
          query: params.get('query') ?? undefined,
          documentId: params.get('documentId') ?? undefined,
          extensions: jsonOrUndefined(params.get('extensions')),
        };
  const admitted = trusted.admit(fields);
  if ('error' in admitted) return admitted;
  const extensions = {
    ...(isRecord(fields.extensions) ? fields.extensions : {}),
    persistedQuery: { version: 1, sha256Hash: admitted.id.slice('sha256:'.length) },
  };
  if (method === 'POST') {
    const { query: _query, documentId: _documentId, ...rest } = body as Record<string, unknown>;
    return { body: { ...rest, extensions }, search: url.search };
  }
  params.delete('query');
  params.delete('documentId');
  params.set('extensions', JSON.stringify(extensions));
  return { body, search: `?${params}` };
}

/**
 * Plain node:http glue for Apollo: session check, bounded body, then Apollo's own HTTP pipeline
 * (CSRF prevention, content negotiation, error formatting).
 */
export function createGraphQLHttpHandler(options: GraphQLHttpHandlerOptions) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL, scope: RequestScope): Promise<void> => {
    const authentication = await options.authenticator.authenticate(req.headers);
    if (authentication && !authentication.ok) {
      const { status, code, reason, message } = authentication.refusal;
      const challenge: Record<string, string> =
        status === 401 && req.headers.authorization !== undefined
          ? {
              'www-authenticate': `Bearer error="${reason === 'MALFORMED_AUTHORIZATION' ? 'invalid_request' : 'invalid_token'}"`,
            }
          : {};
      return sendJson(
        res,
        status,
        { errors: [{ message, extensions: { code, reason } }] },
        errorHeaders(req, { ...challenge, ...(req.complete ? {} : { connection: 'close' }) }),
      );
    }
    const session = authentication?.session;
    if (!session) {
      // A body nobody will read would hold the connection until the request deadline: close it.
      return sendJson(
        res,
        401,
        graphQLErrorBody('Sign in first: GET /auth/login starts the sign-in.', ErrorCode.UNAUTHENTICATED),
        errorHeaders(req, req.complete ? {} : { connection: 'close' }),
      );
    }

    let body: unknown;
    if (req.method === 'POST') {
      let raw: Buffer;
      try {
        raw = await readRawBody(req, options.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError)
          return sendJson(
            res,
            413,
            graphQLErrorBody(`Request body exceeds ${error.limitBytes} bytes.`, 'BAD_REQUEST'),
            errorHeaders(req, { connection: 'close' }),
          );
        throw error;
      }
      if (mediaType(req) === 'application/json') {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          return sendJson(
            res,
            400,
            graphQLErrorBody('Request body is not valid JSON.', 'BAD_REQUEST'),
            errorHeaders(req),
          );
        }
      } else {
        body = raw.toString('utf8');
      }
    }

    const endsAt = authentication?.via === 'bearer' ? authentication.tokenExpiresAt : undefined;
    if (await options.streamSubscription?.(req, res, session, body, endsAt)) return;

    let search = url.search;
    if (options.trustedDocuments) {
      const trusted = trustedRequest(options.trustedDocuments, req.method ?? 'GET', body, url);
      if ('error' in trusted) {
        options.onOperation?.('unknown', String(trusted.error.extensions.code));
        return sendJson(res, trusted.httpStatus, { errors: [trusted.error.toJSON()] }, errorHeaders(req));
      }
      ({ body, search } = trusted);
    }

    let context: GatewayContext | undefined;
    const contextOnce = () => (context ??= options.createContext(session, scope, req.headers.origin));
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await options.apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method ?? 'GET', headers, search, body },
      context: async () => contextOnce(),
    });
    // Revocation (by the user, or a dead token) ended the session during this request.
    if (context?.session.ended && authentication?.via === 'cookie') options.sessions.clearCookie(res);

    for (const [name, value] of response.headers) res.setHeader(name, value);
    if (!response.headers.has('cache-control')) res.setHeader('cache-control', 'no-store');
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.end(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  };
}
