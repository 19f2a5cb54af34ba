/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The gateway's origin, such as http://localhost:4000. */
  readonly VITE_GATEWAY_URL?: string;
}
