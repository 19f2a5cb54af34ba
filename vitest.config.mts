import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** Both packages' tests in one run: the gateway's (test/) and the sandbox's (sandbox/test/). */
export default defineConfig({
  resolve: {
    // type-graphql loads graphql's CommonJS build; the tests must use the same module instance.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/leftovers.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Vitest's default is one worker fewer than the cores: a single worker on two cores. The tests
    // mostly wait on servers and sockets, so three workers share two cores well.
    maxWorkers: 3,
    projects: [
      {
        extends: true,
        test: { name: 'gateway', include: ['test/**/*.test.ts'], exclude: ['test/audit/**'] },
      },
      'sandbox/vitest.config.mts',
    ],
  },
});
