import { createServer } from 'node:net';
import { listenOn } from '@open-finance-gateway/common/http/listen';

/**
 * Fails with the gateway's own wording ("port 4100 is in use by another program: set
 * EXAMPLE_GATEWAY_PORT to a free port") when `port` cannot be listened on now, before a command
 * starts anything: a clash found later would leave half of it running. Port 0 (any) always passes.
 */
export async function ensurePortFree(port: number, setting: string, host?: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await listenOn(probe, port, host, setting);
  await new Promise((closed) => probe.close(closed));
}

/** A port setting's value, or its default when unset; a bad value fails naming the setting. */
export function portSetting(env: NodeJS.ProcessEnv, setting: string, fallback: number): number {
  const raw = env[setting]?.trim();
  if (!raw) return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65_535) throw new Error(`${setting} must be a port from 0 to 65535`);
  return Number(raw);
}
