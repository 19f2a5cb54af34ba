import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
const require = createRequire(import.meta.url);
export default defineConfig({ resolve: { alias: { graphql: require.resolve('graphql') } }, test: { include: ['test/**/*.test.ts'] } });
