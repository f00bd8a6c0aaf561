/** Time in the benchmarks: this benchmark's budget, timestamps comparable between processes, pauses. */

/** This benchmark's time budget (the runner's), from the process start; unlimited when run alone. */
const BUDGET_SECONDS = Number(process.env.BENCH_SECONDS ?? Infinity);
/** Seconds left of the budget. */
export const secondsLeft = () => BUDGET_SECONDS - process.uptime();

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes of this machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
