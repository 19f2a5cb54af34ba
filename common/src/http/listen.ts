import type { Server } from 'node:net';

/**
 * Listens on `port` (0: any free one) and `host` (undefined: every address, as `server.listen`
 * does). A port that cannot be had fails with a message that names the setting moving it:
 * "port 4000 is in use by another program: set PORT to a free port". Without the setting's name,
 * Node's `EADDRINUSE :::4000` leaves a newcomer to guess which command owns which port.
 */
export async function listenOn(server: Server, port: number, host: string | undefined, setting: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(explainListenError(error, port, setting));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/** The same explanation for a listen error met elsewhere; any other error comes back as it was. */
export function explainListenError(error: unknown, port: number, setting: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE')
    return new Error(`port ${port} is in use by another program: set ${setting} to a free port`);
  if (code === 'EACCES')
    return new Error(`port ${port} needs privileges this process lacks: set ${setting} to a port above 1023`);
  return error;
}
