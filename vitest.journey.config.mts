import { defineConfig } from 'vitest/config';

/**
 * The first-run journey (`npm run test:journey`): `npm run example` on this checkout, driven in
 * Chromium. CI runs it on its fresh clone before `npm test`, so nothing is generated or built yet.
 */
export default defineConfig({
  test: {
    include: ['test/journeys/**/*.journey.ts'],
    setupFiles: ['test/support/leftovers.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
