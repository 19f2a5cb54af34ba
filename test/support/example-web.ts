import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { track } from './leftovers.js';

const APP_DIR = 'examples/web';
/** A build for no gateway in particular: serveStatic puts the real gateway's URL in its place. */
export const PLACEHOLDER_GATEWAY_URL = 'http://gateway-url.placeholder.invalid';
const VITE = 'node_modules/vite/bin/vite.js';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Builds the example web app for `gatewayUrl` with `vite build` into a temporary directory (removed
 * after the test), with `env` added to the build's environment. Returns the directory.
 */
export async function buildExampleWeb(gatewayUrl: string, env: Record<string, string> = {}): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'example-web-'));
  track(() => rm(outDir, { recursive: true, force: true }));
  await viteBuild(outDir, { ...env, VITE_GATEWAY_URL: gatewayUrl });
  return outDir;
}

/**
 * One build for every test of a file (a build takes seconds of CPU): made for
 * PLACEHOLDER_GATEWAY_URL, pointed at each test's gateway by serveStatic. `remove` in afterAll.
 */
export async function buildExampleWebForAnyGateway(): Promise<{ outDir: string; remove: () => Promise<void> }> {
  const outDir = await mkdtemp(join(tmpdir(), 'example-web-'));
  await viteBuild(outDir, { VITE_GATEWAY_URL: PLACEHOLDER_GATEWAY_URL });
  return { outDir, remove: () => rm(outDir, { recursive: true, force: true }) };
}

async function viteBuild(outDir: string, env: Record<string, string>): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [VITE, 'build', APP_DIR, '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'],
    { env: { ...process.env, ...env } },
  );
}

/** Every built script's text: what a visitor can read. */
export async function bundleText(outDir: string): Promise<string> {
  const assets = join(outDir, 'assets');
  const names = (await readdir(assets)).filter((name) => name.endsWith('.js'));
  return (await Promise.all(names.map((name) => readFile(join(assets, name), 'utf8')))).join('\n');
}

/**
 * Serves the built app on `127.0.0.1:port` (a single-page app: unknown paths get index.html); closed
 * after the test. `gateway` points a build made for PLACEHOLDER_GATEWAY_URL at a real gateway.
 */
export async function serveStatic(outDir: string, port: number, gateway?: string): Promise<void> {
  const server = createServer((req, res) => {
    const path = normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^(\.\.[/\\])+/, '');
    const file = extname(path) ? join(outDir, path) : join(outDir, 'index.html');
    readFile(file).then(
      (body) => {
        const type = TYPES[extname(file)] ?? 'application/octet-stream';
        const served =
          gateway && type === 'text/javascript'
            ? body.toString('utf8').replaceAll(PLACEHOLDER_GATEWAY_URL, gateway)
            : body;
        res.writeHead(200, { 'content-type': type }).end(served);
      },
      () => res.writeHead(404).end(),
    );
  }).listen(port, '127.0.0.1');
  await once(server, 'listening');
  track(() => new Promise<void>((resolve) => server.close(() => resolve())));
}
