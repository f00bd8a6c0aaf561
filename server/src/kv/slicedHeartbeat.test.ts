import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlicedHeartbeat } from './slicedHeartbeat.ts';

describe('a sliced heartbeat', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('deals slices round robin and beats each slice once per period, one slice at a time', () => {
    const beats: number[] = [];
    const heartbeat = new SlicedHeartbeat(20_000, 4, (slice) => beats.push(slice));
    expect(Array.from({ length: 6 }, () => heartbeat.nextSlice())).toEqual([0, 1, 2, 3, 0, 1]);

    vi.advanceTimersByTime(4_999);
    expect(beats).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(beats).toEqual([0]);
    vi.advanceTimersByTime(15_000);
    expect(beats).toEqual([0, 1, 2, 3]);
    vi.advanceTimersByTime(20_000);
    expect(beats).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);

    heartbeat.stop();
    vi.advanceTimersByTime(60_000);
    expect(beats).toHaveLength(8);
  });

  it('a beat covers the entries of its own slice, and a beat without a slice covers every entry', () => {
    expect(SlicedHeartbeat.covers(2, 2)).toBe(true);
    expect(SlicedHeartbeat.covers(2, 3)).toBe(false);
    expect(SlicedHeartbeat.covers(undefined, 3)).toBe(true);
  });
});
