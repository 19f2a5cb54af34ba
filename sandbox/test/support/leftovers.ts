import { afterEach } from 'vitest';

/** Disposers of everything a test started; run after each test, newest first. */
const leftovers: Array<() => Promise<void> | void> = [];

export function track(dispose: () => Promise<void> | void): void {
  leftovers.push(dispose);
}

afterEach(async () => {
  while (leftovers.length > 0) await leftovers.pop()!();
});
