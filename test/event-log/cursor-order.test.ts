import { describe, expect, it } from 'vitest';
import { compareCursors } from '../../src/event-log/subscription-queue.js';

/** What compareCursors has always meant: both parts read with Number, milliseconds first. */
function byParts(a: string, b: string): number {
  const [aMs, aSeq] = a.split('-').map(Number) as [number, number];
  const [bMs, bSeq] = b.split('-').map(Number) as [number, number];
  return aMs - bMs || aSeq - bSeq;
}

describe('cursor order', () => {
  it('orders cursors by milliseconds, then by sequence', () => {
    expect(compareCursors('1764259200000-3', '1764259200000-12')).toBeLessThan(0);
    expect(compareCursors('1764259200001-0', '1764259200000-99')).toBeGreaterThan(0);
    expect(compareCursors('1764259200000-7', '1764259200000-7')).toBe(0);
    expect(compareCursors('999-0', '1000-0')).toBeLessThan(0);
  });

  it('reads any string as splitting on "-" and Number would, malformed ones included', () => {
    const cursors = [
      '',
      '-',
      '-5',
      '5',
      '5-',
      '1-2-3',
      '0001-01',
      '1e3-1',
      ' 1-2',
      'x-y',
      '1234567890123456-1',
      '12345678901234567-1',
      '1-12345678901234567',
      '1764259200000-0',
    ];
    for (const a of cursors) for (const b of cursors) expect(compareCursors(a, b)).toBe(byParts(a, b));
  });
});
