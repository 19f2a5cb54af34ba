import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../src/event-log/event-log.js';
import { FanOut } from '../../src/event-log/fan-out.js';
import { createSharedExecutions } from '../../src/operation-core/shared-executions.js';

const event = (n: number): LoggedEvent => ({
  type: 'PAYMENT',
  code: 'UPDATE',
  payload: {},
  receivedAt: '',
  cursor: `1-${n}`,
});

describe('fan-out to many subscribers', () => {
  it('hands an event to a slice of subscribers per turn of the event loop, and every subscriber gets events in order', async () => {
    const fanOut = new FanOut(100);
    const seen = Array.from({ length: 250 }, () => [] as string[]);
    seen.forEach((list) => fanOut.add((logged) => list.push(logged.cursor)));
    fanOut.publish(event(1));
    fanOut.publish(event(2));
    expect(seen.filter((list) => list.length > 0)).toHaveLength(100);
    for (let turn = 0; turn < 10; turn += 1) await nextTurn();
    expect(seen.every((list) => list.join() === '1-1,1-2')).toBe(true);
  });

  it('hands a few subscribers the event at once', () => {
    const fanOut = new FanOut(100);
    const seen: string[] = [];
    fanOut.add((logged) => seen.push(logged.cursor));
    fanOut.publish(event(1));
    expect(seen).toEqual(['1-1']);
  });
});

describe('shared executions', () => {
  it('executes once per key and hands the result out in slices', async () => {
    const shared = createSharedExecutions({ sliceSize: 100, keepMs: 1_000 });
    let executions = 0;
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const result = { data: { ok: true } };
    let resolved = 0;
    const waiting = Array.from({ length: 300 }, () =>
      shared
        .run('user|doc|1-1', async () => {
          executions += 1;
          await gate;
          return result;
        })
        .then((value) => {
          resolved += 1;
          return value;
        }),
    );
    finish();
    await nextTurn();
    expect(resolved).toBeLessThanOrEqual(200);
    const all = await Promise.all(waiting);
    expect(executions).toBe(1);
    expect(all.every((value) => value === result)).toBe(true);
    expect(await shared.run('user|doc|1-2', async () => ({ data: { other: true } }))).toEqual({
      data: { other: true },
    });
  });
});
