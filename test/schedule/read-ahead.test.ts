import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../../src/schedule/read-ahead.js';
import type { WorkItem } from '../../src/schedule/work-item.js';

const item = (row: number) => ({ row }) as WorkItem;

describe('ReadAhead', () => {
  it('rows taken from behind the head leave holes the head skips; holes count in the span until the head passes them', () => {
    const q = new ReadAhead();
    for (let row = 0; row < 6; row++) q.push(item(row));
    const behind = [...q.behind(3)].map(([i, it]) => [i, it.row]);
    expect(behind).toEqual([[1, 1], [2, 2], [3, 3]]);
    q.takeAt(2);
    q.takeAt(1);
    expect(q.size).toBe(4);
    expect(q.span).toBe(6);
    expect([...q.behind(3)].map(([, it]) => it.row)).toEqual([3]);
    q.takeHead();
    expect(q.peek()?.row).toBe(3);
    expect(q.size).toBe(3);
    expect(q.span).toBe(3);
    expect(() => q.takeAt(1)).toThrow(RangeError);
  });

  it('holds no more than it was given, whatever is taken in which order', () => {
    const q = new ReadAhead();
    let seed = 5;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const taken: number[] = [];
    let next = 0;
    // The largest span seen after a take, and the step it was seen at (asserted once, after the loop).
    let widest = { span: 0, step: -1 };
    for (let step = 0; step < 5_000; step++) {
      while (q.span < 300) q.push(item(next++));
      if (random() < 0.5) {
        taken.push((q.peek() as WorkItem).row);
        q.takeHead();
      } else {
        const behind = [...q.behind(256)];
        const pick = behind[Math.floor(random() * behind.length)];
        if (pick) {
          taken.push(pick[1].row);
          q.takeAt(pick[0]);
        }
      }
      if (q.span > widest.span) widest = { span: q.span, step };
    }
    expect(widest.span, `span after step ${widest.step}`).toBeLessThanOrEqual(300);
    // Every row taken once; the ones not taken are exactly those still held.
    expect(new Set(taken).size).toBe(taken.length);
    expect(taken.length + q.size).toBe(next);
  });
});
