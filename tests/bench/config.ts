/**
 * Where the benchmark suite keeps its files, the services it runs against, and the knobs of a run.
 *
 * Every benchmark creates its own PostgreSQL database (dropped afterwards) and its own Redis
 * key prefix, so runs never see each other's rows or keys.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BENCH_DIR = import.meta.dirname;
export const RESULTS_DIR = path.join(BENCH_DIR, 'results');
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/** Names this run's databases and Redis prefixes, so the runner can clean up after a killed benchmark. */
export const RUN_ID = process.env.BENCH_RUN_ID || randomBytes(3).toString('hex');
/** Shorter phases, for trying the suite out (`BENCH_QUICK=1`); the recorded figures use the full phases. */
export const QUICK = process.env.BENCH_QUICK === '1';
/** Start benchmark servers with --cpu-prof (profiles land in results/profiles). */
export const PROFILE = process.env.BENCH_PROFILE === '1';
/** Server processes the app runs as (`BENCH_WORKERS=2`: a primary and two workers, WORKERS=2); the floors stay one process. */
export const APP_WORKERS = process.env.BENCH_WORKERS || '1';
