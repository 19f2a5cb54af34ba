import { runNativeApp } from './native-app.js';

/**
 * The example as a command: prints each URL a phone app would open in the system browser (open it
 * yourself, on this machine: the browser comes back to a listener on 127.0.0.1).
 */
async function main(): Promise<void> {
  const gatewayUrl = process.env.GATEWAY_URL ?? 'http://localhost:4000';
  const issuer = process.env.ISSUER;
  if (!issuer)
    throw new Error(
      'set ISSUER to the identity provider: the gateway prints the whole command in its start-up banner ("Native example: ISSUER=… npm run example:native")',
    );
  // Both before the sign-in: found missing after it, the user would have signed in for nothing.
  await answers(
    `${gatewayUrl}/healthz`,
    `no gateway answers at ${gatewayUrl}: start one (npm start), or set GATEWAY_URL`,
  );
  await answers(
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    `no identity provider answers at ISSUER=${issuer}: use the one the gateway's start-up banner prints`,
  );
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

/** Fails with `problem` unless `url` answers 200. */
async function answers(url: string, problem: string): Promise<void> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
  if (response?.status !== 200) throw new Error(problem);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`native example failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
