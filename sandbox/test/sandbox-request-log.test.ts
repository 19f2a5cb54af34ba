import { describe, expect, it } from 'vitest';
import { createLogger } from '@open-finance-gateway/common/logger';
import { SandboxState } from '../src/sandbox-state.js';
import { createSandbox } from '../src/sandbox.js';
import { track } from './support/leftovers.js';

const credentials = { appToken: 'app_token_x', appSecret: 'secret', enrichmentKey: 'genie_token_x' };

describe('the sandbox request log', () => {
  it('is kept only when asked for, and refuses to answer rather than answer "none" when it is not', async () => {
    const sandbox = createSandbox({ logger: createLogger({ level: 'silent' }), headerPrefix: 'X-Service' });
    await sandbox.start();
    track(() => sandbox.stop());
    await (await fetch(`${sandbox.coreUrl}/v1/me`)).arrayBuffer();
    expect(() => sandbox.requests()).toThrow(/recordRequests/);
  });

  it('is bounded in bytes, oldest dropped first', () => {
    const state = new SandboxState(credentials, Date.now);
    state.recordRequests = true;
    for (let n = 0; n < 100; n += 1)
      state.record(
        { service: 'enrichment', method: 'POST', path: `/v1/search/${n}`, headers: {}, body: undefined, at: n },
        256 * 1024,
      );
    // 8 MiB of 256 KiB bodies (plus the header allowance) hold 31 requests: the newest ones.
    expect(state.requests.length).toBe(31);
    expect(state.requests[0]!.path).toBe('/v1/search/69');
    expect(state.requests.at(-1)!.path).toBe('/v1/search/99');
  });
});
