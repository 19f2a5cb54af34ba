import { runNativeApp } from './native-app.js';

/**
 * The example as a command: prints each URL a phone app would open in the system browser (open it
 * yourself, on this machine: the browser comes back to a listener on 127.0.0.1).
 */
async function main(): Promise<void> {
  const gatewayUrl = process.env.GATEWAY_URL ?? 'http://localhost:4000';
  const issuer = process.env.ISSUER;
  if (!issuer) throw new Error('set ISSUER to the identity provider (the gateway banner prints the sandbox one)');
  await runNativeApp({
    gatewayUrl,
    issuer,
    clientId: process.env.CLIENT_ID ?? 'nz.sandbox.native',
    openUrl: (url, purpose) =>
      void process.stdout.write(
        `\nOpen this in your browser (${purpose}):\n\n  ${url}\n\nWaiting for the browser to come back…\n`,
      ),
    log: (line) => void process.stdout.write(`${line}\n`),
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`native example failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
