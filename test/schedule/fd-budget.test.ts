import { describe, expect, it } from 'vitest';
import { FD_RESERVE, MAX_IN_FLIGHT_PER_PROCESS, processCeiling, readFdBudget } from '../../src/schedule/fd-budget.js';

describe('fd budget', () => {
  it('reads this process\'s soft limit of open files and how many are open', () => {
    const budget = readFdBudget();
    expect(budget.softLimit).toBeGreaterThan(0);
    expect(budget.open).toBeGreaterThan(0);
    if (process.platform === 'linux') expect(budget.source).toBe('rlimit');
  });

  it('leaves a reserve and divides by the descriptors each request holds; at most the memory cap, at least 1', () => {
    expect(processCeiling({ softLimit: 1_024, source: 'assumed', open: 20 }, 1)).toBe(1_024 - 20 - FD_RESERVE);
    expect(processCeiling({ softLimit: 1_024, source: 'assumed', open: 20 }, 2)).toBe(Math.floor((1_024 - 20 - FD_RESERVE) / 2));
    expect(processCeiling({ softLimit: 1_048_576, source: 'rlimit', open: 20 }, 1)).toBe(MAX_IN_FLIGHT_PER_PROCESS);
    expect(processCeiling({ softLimit: 50, source: 'rlimit', open: 40 }, 1)).toBe(1);
  });
});
