import DataLoader from 'dataloader';

/**
 * How long a batch stays open after its first call. Autosaves that arrive within it share one
 * round trip to Redis and one statement and commit in PostgreSQL. Each batch a save joins makes it
 * wait about a millisecond more; the server and PostgreSQL spend less per save the busier they are
 * (BENCHMARKS.md).
 */
const BATCH_WINDOW_MS = 1;

/**
 * Calls made within one batch window (`windowMs`, by default the autosaves' millisecond) reach
 * `run` together; each caller gets its own answer or error.
 */
export function windowBatcher<K, V>(run: (batch: readonly K[]) => Promise<(V | Error)[]>, maxBatchSize: number, windowMs = BATCH_WINDOW_MS): DataLoader<K, V> {
  return new DataLoader(run, { cache: false, maxBatchSize, batchScheduleFn: (send) => setTimeout(send, windowMs) });
}
