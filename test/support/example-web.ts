import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { track } from './leftovers.js';

const APP_DIR = 'examples/web';
const VITE = 'node_modules/vite/bin/vite.js';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
};

/**
 * Builds the example web app for `gatewayUrl` with `vite build` into a temporary directory (removed
 * after the test), with `env` added to the build's environment. Returns the directory.
 */
export async function buildExampleWeb(gatewayUrl: string, env: Record<string, string> = {}): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'example-web-'));
  track(() => rm(outDir, { recursive: true, force: true }));
  await promisify(execFile)(
    process.execPath,
    [VITE, 'build', APP_DIR, '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'],
    {
      env: { ...process.env, ...env, VITE_GATEWAY_URL: gatewayUrl },
    },
  );
  return outDir;
}

/** Every built script's text: what a visitor can read. */
export async function bundleText(outDir: string): Promise<string> {
  const assets = join(outDir, 'assets');
  const names = (await readdir(assets)).filter((name) => name.endsWith('.js'));
  return (await Promise.all(names.map((name) => readFile(join(assets, name), 'utf8')))).join('\n');
}

/** Serves the built app on `127.0.0.1:port` (a single-page app: unknown paths get index.html); closed after the test. */
export async function serveStatic(outDir: string, port: number): Promise<void> {
  const server = createServer((req, res) => {
    const path = normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^(\.\.[/\\])+/, '');
    const file = extname(path) ? join(outDir, path) : join(outDir, 'index.html');
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end(),
    );
  }).listen(port, '127.0.0.1');
  await once(server, 'listening');
  track(() => new Promise<void>((resolve) => server.close(() => resolve())));
}
