import { WEBHOOK_EVENTS as SANDBOX_WEBHOOK_EVENTS } from '@open-finance-gateway/sandbox';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS } from '../src/contract/webhook-events.js';

describe('the gateway and the sandbox package', () => {
  it('agree on the webhook table: every type and code the sandbox sends, the gateway knows', () => {
    // Each side keeps its own copy (the packages share no source files); this keeps them one table.
    expect(SANDBOX_WEBHOOK_EVENTS).toEqual(WEBHOOK_EVENTS);
  });
});
