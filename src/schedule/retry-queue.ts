/**
 * Rows waiting to be sent again, ordered by when they may go (`notBefore`), then by row id so that retries keep input
 * order among themselves. A binary min-heap: O(log n) push and pop.
 */
import type { WorkItem } from './work-item.js';

export class RetryQueue {
  #heap: WorkItem[] = [];

  get size(): number {
    return this.#heap.length;
  }

  /** The row that may go first, without removing it. */
  peek(): WorkItem | undefined {
    return this.#heap[0];
  }

  push(item: WorkItem): void {
    const heap = this.#heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as WorkItem, heap[parent] as WorkItem)) break;
      [heap[i], heap[parent]] = [heap[parent] as WorkItem, heap[i] as WorkItem];
      i = parent;
    }
  }

  pop(): WorkItem | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l] as WorkItem, heap[m] as WorkItem)) m = l;
        if (r < heap.length && before(heap[r] as WorkItem, heap[m] as WorkItem)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as WorkItem, heap[i] as WorkItem];
        i = m;
      }
    }
    return top;
  }
}

function before(a: WorkItem, b: WorkItem): boolean {
  return a.notBefore < b.notBefore || (a.notBefore === b.notBefore && a.row < b.row);
}
