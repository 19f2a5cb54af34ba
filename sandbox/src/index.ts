/**
 * The platform sandbox's public entry: what the gateway's embedded mode, the tests and the
 * benchmarks use. Everything else under src/ is internal to the sandbox.
 */
export { createSandbox, LOAD_USER_PASSWORD, type Sandbox, type SandboxOptions } from './sandbox.js';
export type {
  EnrichmentFault,
  KeptDataProbe,
  RecordedRequest,
  SandboxCredentials,
  ServiceFault,
} from './sandbox-state.js';
export type { SandboxIdentity } from './identity/identity-provider.js';
export { SigningKeys } from './webhooks/signing-keys.js';
export { MERCHANTS } from './data/merchants.js';
export { sandboxId } from './data/sandbox-ids.js';
