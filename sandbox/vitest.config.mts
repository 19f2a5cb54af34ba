import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'sandbox',
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/leftovers.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
