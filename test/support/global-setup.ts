import { rmSync } from 'node:fs';
import { AUDIT_DIR } from './audit.js';

/** A fresh audit directory for every full run, so the audit only judges this run's traffic. */
export default function setup(): void {
  rmSync(AUDIT_DIR, { recursive: true, force: true });
}
