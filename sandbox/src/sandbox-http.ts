import { createServer, type Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { BodyTooLargeError, mediaType, readRawBody } from '@open-finance-gateway/common/http/read-body';
import { sendJson } from '@open-finance-gateway/common/http/respond';
import { Router, type RouteRequest } from '@open-finance-gateway/common/http/router';
import type { Logger } from '@open-finance-gateway/common/logger';
import type { SandboxState, ServiceFault } from './sandbox-state.js';

export interface SandboxRequest extends RouteRequest {
  rawBody: Buffer;
}

export type SandboxRouter = Router<SandboxRequest>;

const MAX_REQUEST_BYTES = 1024 * 1024;

/** The platform's error envelope. */
export function platformError(request: SandboxRequest, status: number, message: string): void {
  sendJson(request.res, status, { success: false, message });
}

/** An error message quoting every header and the body of the request (a fault for tests). */
function echoedCredentials(request: SandboxRequest): string {
  const headers = Object.entries(request.req.headers)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join('; ');
  return `Refused request with ${headers}; body ${request.rawBody.toString('utf8')}; Authorization: ${request.req.headers.authorization ?? 'none'}`;
}

/** Parses a JSON (or, for OAuth, form-encoded) body; undefined when it is neither. */
export function parseBody(request: SandboxRequest): unknown {
  const text = request.rawBody.toString('utf8');
  const type = mediaType(request.req);
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text));
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * An HTTP server for one sandbox service. Records every request (for tests and the demo's
 * "what did the gateway send?") and answers unknown paths in the platform's envelope.
 */
export function createSandboxServer(
  service: 'core' | 'enrichment',
  router: SandboxRouter,
  state: SandboxState,
  logger: Logger,
  stopping: AbortSignal,
): Server {
  const faultOf = (): ServiceFault => (service === 'core' ? state.coreFault : state.enrichmentFault);
  return createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
      let rawBody: Buffer;
      try {
        rawBody = await readRawBody(req, MAX_REQUEST_BYTES);
      } catch (error) {
        if (error instanceof BodyTooLargeError)
          return sendJson(res, 413, { success: false, message: 'Payload too large' });
        throw error;
      }
      const request: SandboxRequest = { req, res, url, params: {}, rawBody };
      // Controls change the world: JSON only, so a foreign web page cannot send one without a
      // CORS preflight, which the sandbox never grants.
      if (req.method === 'POST' && url.pathname.startsWith('/sandbox/') && mediaType(req) !== 'application/json')
        return platformError(request, 415, 'Sandbox controls take application/json');
      state.record(
        {
          service,
          method: req.method ?? 'GET',
          path: url.pathname,
          headers: req.headers,
          body: state.recordRequests ? parseBody(request) : undefined,
          at: state.clock(),
        },
        rawBody.length,
      );
      const fault = { ...faultOf() };
      let dropResponse = false;
      if (
        (fault.status || fault.delayMs || fault.dropResponse) &&
        url.pathname.startsWith('/v1/') &&
        (!fault.pathPrefix || url.pathname.startsWith(fault.pathPrefix))
      ) {
        const live = faultOf();
        if (live.times !== undefined) {
          live.times -= 1;
          if (live.times <= 0)
            Object.assign(live, { status: undefined, delayMs: undefined, times: undefined, dropResponse: undefined });
        }
        dropResponse = fault.dropResponse === true;
        if (fault.delayMs) {
          try {
            await delay(fault.delayMs, undefined, { signal: stopping });
          } catch {
            res.destroy();
            return;
          }
        }
        if (fault.status)
          return platformError(
            request,
            fault.status,
            fault.echoCredentials ? echoedCredentials(request) : `${service} is unavailable (sandbox fault)`,
          );
      }
      const match = router.match(req.method ?? 'GET', url.pathname);
      if (match === undefined) return platformError(request, 404, 'Not found');
      if (match === 'methodNotAllowed') return platformError(request, 405, 'Method not allowed');
      request.params = match.params;
      if (dropResponse) {
        // The handler's effects stand; its answer never leaves.
        res.writeHead = () => res;
        res.end = (() => {
          req.socket.destroy();
          return res;
        }) as typeof res.end;
      }
      await match.handler(request);
    })().catch((error: unknown) => {
      logger.error({ err: error, service }, 'sandbox handler failed');
      if (!res.headersSent) sendJson(res, 500, { success: false, message: 'Something went wrong' });
      else res.destroy();
    });
  });
}
