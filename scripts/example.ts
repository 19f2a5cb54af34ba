/**
 * `npm run example`: the gateway on its embedded sandbox and the example web app's Vite dev server,
 * wired together (the app's origin in ALLOWED_ORIGINS, the gateway's URL in VITE_GATEWAY_URL). Its
 * own ports (EXAMPLE_GATEWAY_PORT, EXAMPLE_WEB_PORT) keep it clear of a quick start left running;
 * both are checked before anything starts, and a taken one is named with its setting.
 * The gateway runs as a child (the built dist/main.js), reporting when it listens over IPC; Vite
 * runs in this process through its API. Ctrl+C stops both.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type ViteDevServer } from 'vite';
import type { ParentEventMessage } from '../src/lib/parent-events.js';
import { exampleSettings } from './lib/example-settings.js';
import { ensurePortFree } from './lib/ports.js';

async function main(): Promise<void> {
  const { gatewayPort, appPort, appName } = exampleSettings(process.env);
  // localhost for both: the same site, so the gateway's SameSite=Lax session cookie goes with the app's requests.
  const gatewayUrl = `http://localhost:${gatewayPort}`;
  const appOrigin = `http://localhost:${appPort}`;
  await ensurePortFree(gatewayPort, 'EXAMPLE_GATEWAY_PORT');
  await ensurePortFree(appPort, 'EXAMPLE_WEB_PORT');
  process.env.VITE_GATEWAY_URL = gatewayUrl;
  const vite = await createServer({ root: 'examples/web', server: { port: appPort, strictPort: true } });
  await vite.listen();
  const allowed = [process.env.ALLOWED_ORIGINS, appOrigin].filter(Boolean).join(',');
  const gateway = fork('dist/main.js', [], {
    // Not this process's flags (tsx's loader): the gateway runs as `node dist/main.js` does.
    execArgv: [],
    env: {
      SHUTDOWN_DELAY_MS: '0', // no load balancer to drain from: stop at once
      ...process.env,
      PORT: String(gatewayPort),
      // The app the user sees is Kete: the consent and sign-in pages say so too.
      APP_NAME: appName,
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
        `  Its own gateway: ${gatewayUrl} (GraphiQL at /graphql), with ALLOWED_ORIGINS=${allowed}.`,
        '  EXAMPLE_WEB_PORT and EXAMPLE_GATEWAY_PORT move them. Ctrl+C stops both.',
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
