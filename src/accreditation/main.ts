import { existsSync } from 'node:fs';
import { loadConfigOrExit } from '../config/config.js';
import { formatReadinessReport, readinessReport } from './readiness-checks.js';

/** `npm run readiness`: the configuration in this environment against the accreditation rules; exit 1 on a failure. */
function main(): void {
  const config = loadConfigOrExit(process.env);
  const checks = readinessReport(config, { now: Date.now(), leakAuditPresent: existsSync('test/audit') });
  process.stdout.write(formatReadinessReport(checks));
  process.exit(checks.some((check) => check.verdict === 'fail') ? 1 : 0);
}

main();
