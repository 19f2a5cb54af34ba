import { afterEach } from 'vitest';

type Dispose = () => Promise<void> | void;

/**
 * Disposers of everything a test started; run after each test, newest first. The list lives on
 * globalThis, not in this module: without isolation vitest evaluates this setup file again for
 * each test file, while helpers such as startGateway keep the instance they imported first, so a
 * module-level list would split and their disposers would never run (gateways left running).
 */
const LEFTOVERS = Symbol.for('open-finance-gateway.test.leftovers');
const leftovers = ((globalThis as { [LEFTOVERS]?: Dispose[] })[LEFTOVERS] ??= []);

export function track(dispose: Dispose): void {
  leftovers.push(dispose);
}

afterEach(async () => {
  while (leftovers.length > 0) await leftovers.pop()!();
});
