import type { ServerResponse } from 'node:http';
import { sendError } from '@open-finance-gateway/common/http/respond';
import { logoFileOf, PLACEHOLDER_LOGO_FILE } from '../data/logo-files.js';
import { MERCHANTS } from '../data/merchants.js';
import type { SandboxConnection } from '../model/core-model.js';
import type { SandboxRouter } from '../sandbox-http.js';
import { initialsOf, initialsPng, placeholderPng } from './initials-png.js';

/**
 * An image for every logo URL the sandbox hands out: each bank connection's and each merchant's
 * (initials on a colour of their own), and the placeholder for merchants the platform has no logo
 * for. Drawn on first request and kept; any other file is a 404.
 */
export function registerLogoRoutes(router: SandboxRouter, connections: SandboxConnection[]): void {
  const names = {
    connections: distinctLogos(connections.map((connection) => [logoFileOf(connection.name), connection.name])),
    merchants: distinctLogos(MERCHANTS.filter((m) => !m.noLogo).map((m) => [`${m.slug}.png`, m.name])),
  };
  const drawn = new Map<string, Buffer>();
  const serve = (res: ServerResponse, key: string, draw: () => Buffer) => {
    let png = drawn.get(key);
    if (!png) drawn.set(key, (png = draw()));
    res.writeHead(200, {
      'content-type': 'image/png',
      'content-length': png.length,
      'cache-control': 'public, max-age=86400',
    });
    res.end(png);
  };
  for (const kind of ['connections', 'merchants'] as const) {
    router.on('GET', `/logos/${kind}/:file`, ({ res, params }) => {
      const file = params.file!;
      if (kind === 'merchants' && file === PLACEHOLDER_LOGO_FILE) return serve(res, 'placeholder', placeholderPng);
      const name = names[kind].get(file);
      if (name === undefined) return sendError(res, 404, 'NOT_FOUND', 'No such logo.');
      serve(res, `${kind}/${file}`, () => initialsPng(name.name, name.variant));
    });
  }
}

/** Each file's name, and a colour variant that sets it apart from names with the same initials. */
function distinctLogos(files: Array<[string, string]>): Map<string, { name: string; variant: number }> {
  const sameInitials = new Map<string, number>();
  return new Map(
    files.map(([file, name]) => {
      const initials = initialsOf(name);
      const variant = sameInitials.get(initials) ?? 0;
      sameInitials.set(initials, variant + 1);
      return [file, { name, variant }];
    }),
  );
}
