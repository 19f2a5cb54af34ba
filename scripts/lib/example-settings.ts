import { portSetting } from './ports.js';

/**
 * `npm run example`'s own ports, apart from every other command's defaults (`npm start` and
 * `npm run dev` on 4000, the sandbox on 4010-4012), so the example runs beside a quick start left
 * running. Not PORT: that variable is the quick start's, and may well be set in the same shell.
 */
export const EXAMPLE_DEFAULT_PORTS = { EXAMPLE_GATEWAY_PORT: 4100, EXAMPLE_WEB_PORT: 5173 } as const;

/** The example app's name: the gateway's APP_NAME, so the consent pages name the app the user sees. */
export const EXAMPLE_APP_NAME = 'Kete';

export function exampleSettings(env: NodeJS.ProcessEnv): { gatewayPort: number; appPort: number; appName: string } {
  return {
    gatewayPort: portSetting(env, 'EXAMPLE_GATEWAY_PORT', EXAMPLE_DEFAULT_PORTS.EXAMPLE_GATEWAY_PORT),
    appPort: portSetting(env, 'EXAMPLE_WEB_PORT', EXAMPLE_DEFAULT_PORTS.EXAMPLE_WEB_PORT),
    appName: env.APP_NAME?.trim() || EXAMPLE_APP_NAME,
  };
}
