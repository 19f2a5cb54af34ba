import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`Request body exceeds ${limitBytes} bytes`);
  }
}

export class BodyTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Request body not received within ${timeoutMs} ms`);
  }
}

/**
 * Reads the whole body as raw bytes, refusing to buffer more than `limitBytes` or to wait longer
 * than `timeoutMs` for it (a client dripping bytes holds a connection and memory). Raw bytes
 * matter: webhook signatures are computed over them, so nothing may be decoded before
 * verification. On refusal the caller answers with `Connection: close`, which drops the rest.
 */
export function readRawBody(req: IncomingMessage, limitBytes: number, timeoutMs?: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(new BodyTooLargeError(limitBytes));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) return finish(new BodyTooLargeError(limitBytes));
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (error: Error) => finish(error);
    const onAborted = () => finish(new Error('request aborted'));
    const timer =
      timeoutMs === undefined ? undefined : setTimeout(() => finish(new BodyTimeoutError(timeoutMs)), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** The media type of a request without parameters, lower-cased ('' when absent). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
