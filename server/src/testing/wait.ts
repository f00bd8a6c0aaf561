/**
 * Bounded polling: tests wait for a condition, never for a fixed time, and never assert on how
 * long something took. The bound only turns a hang into a clear failure.
 */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  /** Upper bound before the wait fails (not an assertion on speed). */
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns a truthy value (which is returned) or the bound passes; a probe
 * that throws counts as "not yet" and its last error is reported on timeout.
 */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 15_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${detail?.slice(0, 2000)})`);
    }
    await pause(intervalMs);
  }
}
