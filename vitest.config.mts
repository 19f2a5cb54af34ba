import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

const ALONE = ['test/loaders/enrichment-request-batching.test.ts', 'test/hardening/webhook-keys.test.ts'];

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
        test: {
          name: 'gateway',
          include: ['test/**/*.test.ts'],
          exclude: ['test/audit/**', ...ALONE],
          // Each worker keeps its modules from one file to the next: importing the gateway, Apollo
          // and the sandbox afresh for every file cost about 90 s summed and a third of the wall
          // time (docs/performance.md). Tests keep no state at module level; what they start,
          // they stop (track).
          isolate: false,
        },
      },
      // Files that assert how soon something happens (a batching window of at most 100 ms, a
      // delivery within 3 s while a flood is refused): they run after the rest, one at a time, so
      // other workers do not take the CPU from under their clocks.
      {
        extends: true,
        test: { name: 'gateway-alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      'sandbox/vitest.config.mts',
    ],
  },
});
