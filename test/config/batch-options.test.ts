/**
 * The --batch options, checked up front (exit 2): sizes, poll seconds, durations with their unit, the one fallback,
 * --batch-* without --batch, and --batch with a provider that has no Batch API here.
 */
import { describe, expect, it } from 'vitest';
import { batchOptions, DEFAULT_BATCH_SIZE, durationMs } from '../../src/config/batch-options.js';
import { UsageError } from '../../src/errors.js';

describe('batch options', () => {
  it('defaults, and every setting given', () => {
    expect(batchOptions({}, 'gemini')).toBeUndefined();
    expect(batchOptions({ batch: true }, 'gemini')).toEqual({ size: DEFAULT_BATCH_SIZE, pollMs: undefined, deadlineMs: undefined, fallbackOnline: false });
    expect(batchOptions({ batch: true, batchSize: '500', batchPoll: '0.25', batchDeadline: '1h30m', batchFallback: 'online' }, 'gemini')).toEqual({
      size: 500,
      pollMs: 250,
      deadlineMs: 5_400_000,
      fallbackOnline: true,
    });
  });

  it('refuses what cannot run, naming the option', () => {
    const refused = (f: () => unknown, pattern: RegExp) => {
      expect(f).toThrow(UsageError);
      expect(f).toThrow(pattern);
    };
    refused(() => batchOptions({ batchSize: '10' }, 'gemini'), /--batch-size needs --batch/);
    refused(() => batchOptions({ batchFallback: 'online' }, 'gemini'), /--batch-fallback needs --batch/);
    refused(() => batchOptions({ batch: true }, 'openai'), /--provider openai/);
    refused(() => batchOptions({ batch: true }, 'vertex'), /--provider vertex/);
    refused(() => batchOptions({ batch: true, batchSize: '0' }, 'gemini'), /--batch-size/);
    refused(() => batchOptions({ batch: true, batchPoll: '0' }, 'gemini'), /--batch-poll/);
    refused(() => batchOptions({ batch: true, batchFallback: 'later' }, 'gemini'), /--batch-fallback takes one value, online/);
  });

  it('durations need their unit', () => {
    expect(durationMs('--batch-deadline', '6h')).toBe(21_600_000);
    expect(durationMs('--batch-deadline', '90m')).toBe(5_400_000);
    expect(durationMs('--batch-deadline', '2d')).toBe(172_800_000);
    for (const bad of ['45', 'soon', '-1h', '0h', '']) expect(() => durationMs('--batch-deadline', bad)).toThrow(/a duration with its unit/);
  });
});
