import type { ServerResponse } from 'node:http';

export type HeaderValues = Record<string, string | string[]>;

/**
 * The one error shape of every non-GraphQL route (GraphQL's own): `{ errors: [{ message,
 * extensions: { code } }] }`, so a client parses one shape whatever it called.
 */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: HeaderValues = {},
): void {
  sendJson(res, status, { errors: [{ message, extensions: { code } }] }, headers);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: HeaderValues = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** A JSON body already serialised (a route that reuses the text of repeated parts). */
export function sendJsonText(res: ServerResponse, status: number, payload: string, headers: HeaderValues = {}): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(payload);
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: HeaderValues = {}): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    ...headers,
  });
  res.end(html);
}

export function redirect(res: ServerResponse, location: string, headers: HeaderValues = {}, status = 302): void {
  res.writeHead(status, { location, 'cache-control': 'no-store', 'content-length': 0, ...headers });
  res.end();
}

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/**
 * Every HTML page's shell: language, charset and the viewport meta, so each one is readable on a
 * phone. `title` is text (escaped here); `style` and `body` are HTML.
 */
export function htmlPage(page: { title: string; style?: string; body: string }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(page.title)}</title>${page.style ? `<style>${page.style}</style>` : ''}</head>
<body>${page.body}</body></html>`;
}
