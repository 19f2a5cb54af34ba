import type { SandboxUser } from '../sandbox-state.js';
import { sandboxId } from './sandbox-ids.js';

/** Demo users offered on the consent page. Stable ids, so demos and bookmarks survive restarts. */
export function buildDemoUsers(): SandboxUser[] {
  return [
    { _id: sandboxId('user', 'aroha'), email: 'aroha.demo@example.co.nz', preferred_name: 'Aroha Ngata' },
    { _id: sandboxId('user', 'james'), email: 'james.demo@example.co.nz', preferred_name: 'James Wilson' },
  ];
}
