import type { SandboxConnection } from '../model/core-model.js';
import { logoFileOf } from './logo-files.js';
import { sandboxId } from './sandbox-ids.js';

/** Nine New Zealand banks, as the enrichment API's supported connections. */
const BANKS = [
  'ANZ',
  'ASB',
  'BNZ',
  'Westpac',
  'Kiwibank',
  'TSB',
  'The Co-operative Bank',
  'SBS Bank',
  'Heartland Bank',
] as const;

export function buildConnections(logoBaseUrl: string): SandboxConnection[] {
  return BANKS.map((name, index) => ({
    _id: sandboxId('conn', name),
    name,
    logo: `${logoBaseUrl}/logos/connections/${logoFileOf(name)}`,
    connection_type: index < 5 ? 'official' : 'classic',
    // The sandbox's app migrates no one, so every bank takes new connections.
    new_connections_enabled: true,
  }));
}
