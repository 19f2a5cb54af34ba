import { defineConfig } from 'vitest/config';

/** Second phase of `npm test`: audits what the first phase recorded (see test/support/audit.ts). */
export default defineConfig({
  test: {
    include: ['test/audit/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
