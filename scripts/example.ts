/**
 * `npm run example`: the gateway on its embedded sandbox and the example web app's Vite dev server,
 * wired together (the app's origin in ALLOWED_ORIGINS, the gateway's URL in VITE_GATEWAY_URL).
 * The gateway runs as a child (the built dist/main.js), reporting when it listens over IPC; Vite
 * runs in this process through its API. Ctrl+C stops both.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type ViteDevServer } from 'vite';
import type { ParentEventMessage } from '../src/lib/parent-events.js';

const gatewayPort = Number(process.env.PORT ?? 4000);
const appPort = Number(process.env.EXAMPLE_WEB_PORT ?? 5173);
// localhost for both: the same site, so the gateway's SameSite=Lax session cookie goes with the app's requests.
const gatewayUrl = `http://localhost:${gatewayPort}`;
const appOrigin = `http://localhost:${appPort}`;

async function main(): Promise<void> {
  process.env.VITE_GATEWAY_URL = gatewayUrl;
  const vite = await createServer({ root: 'examples/web', server: { port: appPort, strictPort: true } });
  await vite.listen();
  const allowed = [process.env.ALLOWED_ORIGINS, appOrigin].filter(Boolean).join(',');
  const gateway = fork('dist/main.js', [], {
    env: {
      SHUTDOWN_DELAY_MS: '0', // no load balancer to drain from: stop at once
      ...process.env,
      PORT: String(gatewayPort),
      ALLOWED_ORIGINS: allowed,
      IPC_EVENTS: 'true',
    },
    // Its own process group: Ctrl+C reaches it once, from here, not also from the terminal.
    detached: true,
  });
  stopTogether(gateway, vite);
  gateway.on('message', (message: ParentEventMessage) => {
    if (message.type !== 'gateway-event' || message.name !== 'listening') return;
    process.stdout.write(
      [
        '',
        `  Example web app: open ${appOrigin} and sign in as aroha@demo.example (the sign-in page shows the password and code).`,
        `  It talks to the gateway at ${gatewayUrl} (ALLOWED_ORIGINS=${allowed}).`,
        '  Ctrl+C stops both.',
        '',
        '',
      ].join('\n'),
    );
  });
}

/** Either one ending ends the other; Ctrl+C (or SIGTERM) ends both, the gateway draining as usual. */
function stopTogether(gateway: ChildProcess, vite: ViteDevServer): void {
  gateway.on('exit', (code) => {
    void vite.close().finally(() => process.exit(code ?? 1));
  });
  let stopping = false;
  const stop = () => {
    if (!stopping) gateway.kill('SIGTERM');
    stopping = true;
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('exit', () => gateway.kill('SIGKILL'));
}

main().catch((error: unknown) => {
  process.stderr.write(`example failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
