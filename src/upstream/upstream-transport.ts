import { errors as undiciErrors } from 'undici';
import { UpstreamError } from './upstream-error.js';
import type { UpstreamRequest } from './upstream-request.js';

/** What goes on the wire for `request`: the prefixed path with its query, the headers, the JSON body. */
export function wireRequest(
  pathPrefix: string,
  request: UpstreamRequest,
  traceHeaders: Record<string, string>,
): { method: UpstreamRequest['method']; path: string; headers: Record<string, string>; body: string | undefined } {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query ?? {})) if (value !== undefined) search.set(key, value);
  const path = `${pathPrefix}${request.path}${search.size > 0 ? `?${search}` : ''}`;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers, ...traceHeaders };
  // The platform's logs and the gateway's can be matched by the request that caused the call.
  if (request.requestId !== undefined) headers['x-request-id'] = request.requestId;
  let body: string | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] = 'application/json';
  }
  return { method: request.method, path, headers, body };
}

/** The credentials a request carried: its authorization and app id headers, secrets in its body. */
export function credentialsIn(request: UpstreamRequest): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (name.toLowerCase() === 'authorization') {
      const credential = value.replace(/^\S+\s+/, '');
      values.push(credential);
      // Basic carries id:secret in base64; either half may be echoed on its own.
      if (/^basic /i.test(value)) values.push(...Buffer.from(credential, 'base64').toString('utf8').split(':'));
    } else if (name.toLowerCase().endsWith('-id')) values.push(value);
  }
  const json = request.json as Record<string, unknown> | undefined;
  for (const key of ['client_secret', 'client_id', 'code']) if (typeof json?.[key] === 'string') values.push(json[key]);
  return values;
}

export async function readCapped(body: AsyncIterable<Buffer>, limit: number, upstream: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      throw new UpstreamError(upstream, 'bad_response', `${upstream} response exceeded ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export function parseJson(raw: Buffer, status: number, upstream: string): unknown {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    // An error page in HTML is still an error status; a 2xx that is not JSON breaks the contract.
    if (status >= 200 && status < 300)
      throw new UpstreamError(upstream, 'bad_response', `${upstream} returned a body that is not JSON`);
    return undefined;
  }
}

export function classifyTransportError(
  error: unknown,
  upstream: string,
  request: UpstreamRequest,
  timeoutMs: number,
): UpstreamError {
  const timedOut =
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError;
  const what = `${request.method} ${request.path}`;
  if (timedOut) return new UpstreamError(upstream, 'timeout', `${upstream} ${what} took longer than ${timeoutMs} ms`);
  const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
  return new UpstreamError(upstream, 'unavailable', `${upstream} ${what} failed: ${reason}`);
}
