import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // type-graphql loads graphql's CommonJS build; the tests must use the same module instance.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/audit/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/leftovers.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
