/**
 * Shared helpers of the benchmark suite: services and databases, server processes, sessions,
 * statistics, CPU/RSS sampling of processes on this machine, and the results files.
 *
 * Every benchmark creates its own PostgreSQL database (dropped afterwards) and its own Redis
 * key prefix, so runs never see each other's rows or keys.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../../server/src/testing/serverProcess.ts';
import { generateSessionToken, sessionIdOf, SESSION_COOKIE } from '../../server/src/auth/sessions.ts';

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
export const SESSION_SECRET = 'bench-session-secret-0123456789abcdef0123456789';
/** This benchmark's time budget (the runner's), from the process start; unlimited when run alone. */
const BUDGET_SECONDS = Number(process.env.BENCH_SECONDS ?? Infinity);
/** Seconds left of the budget. */
export const secondsLeft = () => BUDGET_SECONDS - process.uptime();

// ---------------------------------------------------------------------------------------------
// node-postgres, loaded from the server package (its dependency), typed to what the suite uses.

export interface PgResult<R> {
  rows: R[];
  rowCount: number | null;
}
export interface PgQueryable {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
}
export interface PgPool extends PgQueryable {
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
}
export interface PgClient extends PgQueryable {
  connect(): Promise<void>;
  end(): Promise<void>;
}
interface PgModule {
  Pool: new (config: { connectionString: string; max?: number }) => PgPool;
  Client: new (config: { connectionString: string }) => PgClient;
}
export const pg = createRequire(path.join(ROOT, 'server/package.json'))('pg') as PgModule;

export async function withClient<T>(url: string, run: (client: PgClient) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database on the PostgreSQL server of DATABASE_URL: `csp_bench_<run>_<label>_<random>`. */
export async function createDatabase(label: string): Promise<BenchDatabase> {
  const name = `csp_bench_${RUN_ID}_${label}_${randomBytes(3).toString('hex')}`.toLowerCase();
  await withClient(DATABASE_URL, (client) => client.query(`create database "${name}"`));
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withClient(DATABASE_URL, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => {}),
  };
}

/** Drops every database a run left behind (a killed benchmark cannot clean up after itself). */
export async function dropRunDatabases(runId = RUN_ID): Promise<string[]> {
  return withClient(DATABASE_URL, async (client) => {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like $1`, [`csp_bench_${runId}_%`]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
    return rows.map((row) => row.datname);
  });
}

/** Inserts rows in multi-row statements (under PostgreSQL's 65,535 parameters). */
export async function insertRows(db: PgQueryable, table: string, columns: string[], rows: unknown[][], casts: Record<string, string> = {}): Promise<void> {
  const perStatement = Math.max(1, Math.floor(30_000 / columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    const tuples = chunk.map((row) => {
      const placeholders = row.map((value, column) => {
        values.push(value);
        const cast = casts[columns[column]!];
        return `$${values.length}${cast ? `::${cast}` : ''}`;
      });
      return `(${placeholders.join(',')})`;
    });
    await db.query(`insert into ${table} (${columns.join(',')}) values ${tuples.join(',')}`, values);
  }
}

// ---------------------------------------------------------------------------------------------
// Server processes.

/** The environment of a benchmark server: production mode (fail-closed limits), quiet logs. */
export function serverEnv(databaseUrl: string | undefined, redisPrefix: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    // Production requires an issuer; discovery is lazy and the benchmarks sign in by session rows.
    OIDC_ISSUER: 'https://idp.bench.invalid',
    OIDC_CLIENT_ID: 'csp-web',
    OIDC_CLIENT_SECRET: 'bench',
    SESSION_SECRET,
    LOG_LEVEL: 'warn',
    ...extra,
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  if (redisPrefix !== undefined) {
    env.REDIS_URL = REDIS_URL;
    env.REDIS_PREFIX = redisPrefix;
  }
  if (PROFILE) {
    const dir = path.join(RESULTS_DIR, 'profiles');
    mkdirSync(dir, { recursive: true });
    env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${dir}`;
  }
  return env;
}

export function redisPrefix(label: string): string {
  return `csp-bench-${RUN_ID}-${label}-${randomBytes(3).toString('hex')}:`;
}

/** Deletes a benchmark's Redis keys (SCAN + UNLINK through redis-cli, which ships with Redis). */
export function clearRedisPrefix(prefix: string): void {
  try {
    const url = new URL(REDIS_URL);
    const args = ['-h', url.hostname, '-p', url.port || '6379'];
    const keys = execFileSync('redis-cli', [...args, '--scan', '--pattern', `${prefix}*`], { encoding: 'utf8', maxBuffer: 256 << 20 })
      .split('\n')
      .filter(Boolean);
    for (let start = 0; start < keys.length; start += 500) execFileSync('redis-cli', [...args, 'unlink', ...keys.slice(start, start + 500)]);
  } catch {
    // Best effort: the keys are prefixed by run and expire with their TTLs.
  }
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess(env);
}

export type { ServerProcess };

// ---------------------------------------------------------------------------------------------
// Sessions, as the sign-in route creates them: the row stores SHA-256 of the token.

export interface BenchSession {
  token: string;
  id: string;
  /** The Cookie header an HTTP request carries (Koa signs cookies: the value and its `.sig`). */
  cookie: string;
}

export function newSession(): BenchSession {
  const token = generateSessionToken();
  return { token, id: sessionIdOf(token), cookie: sessionCookieHeader(token) };
}

/** Koa's cookie signature (keygrip: HMAC-SHA1 of `name=value`, base64url). */
export function sessionCookieHeader(token: string, secret = SESSION_SECRET): string {
  const signature = createHmac('sha1', secret).update(`${SESSION_COOKIE}=${token}`).digest('base64url');
  return `${SESSION_COOKIE}=${token}; ${SESSION_COOKIE}.sig=${signature}`;
}

// ---------------------------------------------------------------------------------------------
// Statistics.

export interface Summary {
  count: number;
  median: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, median: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!;
  let sum = 0;
  for (const value of sorted) sum += value;
  return { count: n, median: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[n - 1]!, mean: sum / n };
}

export const round = (value: number, digits = 1) => (Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value);

export function roundSummary(summary: Summary, digits = 1): Summary {
  return Object.fromEntries(Object.entries(summary).map(([key, value]) => [key, key === 'count' ? value : round(value, digits)])) as unknown as Summary;
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable between processes of this machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function log(...parts: unknown[]): void {
  const stamp = new Date().toISOString().slice(11, 19);
  console.log(`[${stamp}]`, ...parts);
}

// ---------------------------------------------------------------------------------------------
// CPU and memory of processes, from /proc (Linux).

const TICKS = 100; // USER_HZ on Linux

function procTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return null;
  }
}

export function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

let redisPidCache: number | null | undefined;
function sharedRedisPid(): number | null {
  if (redisPidCache !== undefined) return redisPidCache;
  try {
    const url = new URL(REDIS_URL);
    const info = execFileSync('redis-cli', ['-h', url.hostname, '-p', url.port || '6379', 'info', 'server'], { encoding: 'utf8' });
    redisPidCache = Number(/process_id:(\d+)/.exec(info)?.[1]) || null;
  } catch {
    redisPidCache = null;
  }
  return redisPidCache;
}

/** Machine-wide ticks; `steal` is time the hypervisor gave this VM's CPUs to other guests. */
function machineTicks(): { busy: number; steal: number; total: number } {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const values = cpu!.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3]! + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, steal: values[7] ?? 0, total };
}

export interface CpuWindow {
  seconds: number;
  /**
   * Percent of one core, per group (100 = one core busy), averaged over the window; `steal` is
   * the time the hypervisor ran other guests instead of this VM, and `other` the rest of the
   * machine's busy time (processes outside this benchmark, e.g. other test runs).
   */
  cpuPercent: Record<string, number>;
  /** Whole machine busy, percent of all cores. */
  machineBusyPercent: number;
  /** Peak resident memory of each group's processes seen in the window, MB. */
  rssMb: Record<string, number>;
}

/**
 * Samples CPU time of named process groups (and PostgreSQL's and Redis's processes) between
 * `start()` and `stop()`, plus their resident memory once a second.
 */
export class CpuSampler {
  private readonly groups: Record<string, () => number[]>;
  private startTicks = new Map<number, number>();
  private startMachine = machineTicks();
  private startedAt = 0;
  private peakRss: Record<string, number> = {};
  private timer: NodeJS.Timeout | undefined;
  private seen = new Map<string, Map<number, number>>();

  /** Another sampler of the same processes (for a second, overlapping window). */
  clone(): CpuSampler {
    return new CpuSampler(this.groups);
  }

  constructor(groups: Record<string, number[] | (() => number[])>) {
    this.groups = Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, typeof pids === 'function' ? pids : () => pids]));
    this.groups.postgres ??= () => pidsNamed('postgres');
    // The Redis server of REDIS_URL only (test suites may run throwaway redis-servers of their own).
    const redisPid = sharedRedisPid();
    this.groups.redis ??= () => (redisPid ? [redisPid] : []);
  }

  start(): void {
    this.startedAt = performance.now();
    this.startMachine = machineTicks();
    this.peakRss = {};
    this.seen = new Map();
    this.startTicks = new Map();
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), 1000);
    this.timer.unref();
  }

  private sample(initial: boolean): void {
    for (const [name, pidsOf] of Object.entries(this.groups)) {
      let rss = 0;
      const ticks = this.seen.get(name) ?? new Map<number, number>();
      for (const pid of pidsOf()) {
        const t = procTicks(pid);
        if (t === null) continue;
        // A process first seen now counts from now: only CPU spent inside the window.
        if (initial || !this.startTicks.has(pid)) this.startTicks.set(pid, t);
        ticks.set(pid, t);
        rss += rssMb(pid) ?? 0;
      }
      this.seen.set(name, ticks);
      this.peakRss[name] = Math.max(this.peakRss[name] ?? 0, rss);
    }
  }

  stop(): CpuWindow {
    if (this.timer) clearInterval(this.timer);
    this.sample(false);
    const seconds = (performance.now() - this.startedAt) / 1000;
    const cpuPercent: Record<string, number> = {};
    for (const [name, ticks] of this.seen) {
      let used = 0;
      for (const [pid, t] of ticks) used += t - (this.startTicks.get(pid) ?? t);
      cpuPercent[name] = round((used / TICKS / seconds) * 100, 0);
    }
    const machine = machineTicks();
    const elapsedTicks = Math.max(1, machine.total - this.startMachine.total);
    const machineBusyPercent = round(((machine.busy - this.startMachine.busy) / elapsedTicks) * 100, 0);
    const ours = Object.values(cpuPercent).reduce((a, b) => a + b, 0);
    cpuPercent.steal = round(((machine.steal - this.startMachine.steal) / elapsedTicks) * 100 * os.cpus().length, 0);
    cpuPercent.other = Math.max(0, round(machineBusyPercent * os.cpus().length - ours - cpuPercent.steal, 0));
    return {
      seconds: round(seconds, 1),
      cpuPercent,
      machineBusyPercent,
      rssMb: Object.fromEntries(Object.entries(this.peakRss).map(([k, v]) => [k, round(v, 0)])),
    };
  }
}

/** Why a window's figures say little about this code: other processes, or the hypervisor, took a good part of a core. */
export function cpuDisturbance(cpu: CpuWindow): string | null {
  const reasons = [
    (cpu.cpuPercent.other ?? 0) > 30 ? `other processes used ${cpu.cpuPercent.other}% of a core` : '',
    (cpu.cpuPercent.steal ?? 0) > 30 ? `the hypervisor took ${cpu.cpuPercent.steal}% of a core (steal)` : '',
  ].filter(Boolean);
  return reasons.length ? reasons.join(', ') : null;
}

/**
 * PostgreSQL processes working for one database: its backends (refreshed every second from
 * pg_stat_activity) and the server's shared background processes (WAL writer, checkpointer...).
 * Other databases' backends on the same server (other test runs) are left out.
 */
export function postgresPidsOf(databaseUrl: string, databaseName: string): { pids: () => number[]; stop: () => Promise<void> } {
  let pids: number[] = [];
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on('error', () => {});
  const refresh = () =>
    pool
      .query<{ pid: number }>(`select pid from pg_stat_activity where datname = $1 or (datname is null and backend_type <> 'autovacuum launcher')`, [
        databaseName,
      ])
      .then((result) => void (pids = result.rows.map((row) => row.pid)))
      .catch(() => {});
  void refresh();
  const timer = setInterval(refresh, 1000);
  timer.unref();
  return {
    pids: () => pids,
    stop: async () => {
      clearInterval(timer);
      await pool.end().catch(() => {});
    },
  };
}

/**
 * What PostgreSQL is doing for one database while a load runs: its active backends sampled
 * every 50 ms from pg_stat_activity (on CPU, or waiting on a WAL flush, a lock, I/O...), the
 * active backends of other databases on the same server (other test runs share its WAL and
 * disk), and the WAL written and checkpoints taken in the window.
 */
export interface PgActivity {
  /** Average active backends of this database by state, e.g. { CPU: 0.4, 'IO:WALSync': 0.8 }. */
  active: Record<string, number>;
  /** Average active backends of other databases on the same server. */
  otherDatabasesActive: number;
  walMbPerSecond: number;
  checkpoints: number;
}

export class PgWaitSampler {
  private readonly pool: PgPool;
  private readonly databaseName: string;
  private counts = new Map<string, number>();
  private others = 0;
  private samples = 0;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private begin: Promise<{ lsn: string; checkpoints: number; at: number } | null> = Promise.resolve(null);

  constructor(databaseUrl: string, databaseName: string) {
    this.pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    this.pool.on('error', () => {});
    this.databaseName = databaseName;
  }

  private snapshot() {
    return this.pool
      .query<{ lsn: string; checkpoints: number }>(
        `select pg_current_wal_lsn()::text as lsn, (select (checkpoints_timed + checkpoints_req)::int from pg_stat_bgwriter) as checkpoints`,
      )
      .then((result) => ({ ...result.rows[0]!, at: performance.now() }))
      .catch(() => null);
  }

  start(): void {
    this.counts = new Map();
    this.others = 0;
    this.samples = 0;
    this.begin = this.snapshot();
    this.timer = setInterval(() => {
      if (this.busy) return;
      this.busy = true;
      this.pool
        .query<{ mine: boolean; wait: string }>(
          `select datname = $1 as mine, coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait from pg_stat_activity
           where state = 'active' and backend_type = 'client backend' and pid <> pg_backend_pid()`,
          [this.databaseName],
        )
        .then((result) => {
          this.samples++;
          for (const { mine, wait } of result.rows) {
            if (mine) this.counts.set(wait, (this.counts.get(wait) ?? 0) + 1);
            else this.others++;
          }
        })
        .catch(() => {})
        .finally(() => (this.busy = false));
    }, 50);
    this.timer.unref();
  }

  async stop(): Promise<PgActivity> {
    if (this.timer) clearInterval(this.timer);
    const samples = Math.max(1, this.samples);
    const active = Object.fromEntries([...this.counts].sort((a, b) => b[1] - a[1]).map(([wait, count]) => [wait, round(count / samples, 2)]));
    const [begin, end] = await Promise.all([this.begin, this.snapshot()]);
    let walMbPerSecond = NaN;
    let checkpoints = NaN;
    if (begin && end) {
      const bytes = await this.pool
        .query<{ bytes: string }>('select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text as bytes', [end.lsn, begin.lsn])
        .then((r) => Number(r.rows[0]!.bytes))
        .catch(() => NaN);
      walMbPerSecond = round(bytes / 2 ** 20 / Math.max(0.001, (end.at - begin.at) / 1000), 2);
      checkpoints = end.checkpoints - begin.checkpoints;
    }
    return { active, otherDatabasesActive: round(this.others / samples, 2), walMbPerSecond, checkpoints };
  }

  end(): Promise<void> {
    return this.pool.end().catch(() => {});
  }
}

/** Machine busy percent (all cores) over `ms`. */
export async function machineBusy(ms = 1000): Promise<number> {
  const before = machineTicks();
  await sleep(ms);
  const after = machineTicks();
  return round(((after.busy - before.busy) / Math.max(1, after.total - before.total)) * 100, 0);
}

/**
 * Waits (bounded) until the machine is quiet: other work on it (another test run) would take
 * the cores this benchmark measures. Returns the last busy figure seen and the time waited.
 */
export async function waitForQuiet(maxWaitMs = 30_000, busyPercent = 20): Promise<{ busyPercent: number; waitedMs: number }> {
  const started = Date.now();
  let busy = await machineBusy(1500);
  while (busy > busyPercent && Date.now() - started < maxWaitMs) busy = await machineBusy(1500);
  if (busy > busyPercent) log(`machine still ${busy}% busy after ${Math.round((Date.now() - started) / 1000)} s: measuring anyway (see cpu.other)`);
  return { busyPercent: busy, waitedMs: Date.now() - started };
}

// ---------------------------------------------------------------------------------------------
// Worker processes (load generators, client fleets): the same Node binary, IPC with structured clone.

export function forkWorker(file: string, options: { args?: string[]; execArgv?: string[]; env?: Record<string, string> } = {}): ChildProcess {
  return fork(path.resolve(BENCH_DIR, file), options.args ?? [], {
    execPath: process.execPath,
    execArgv: options.execArgv ?? [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
}

/** Resolves with the first IPC message of `type` a child sends (e.g. a server's `listening`). */
export function nextMessage<T>(child: ChildProcess, type: string, timeoutMs = 60_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} message from ${child.pid} in ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: { type?: string }) => {
      if (message?.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process ${child.pid} exited (${code}) before ${type}`));
    });
  });
}

export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Sends a request to a worker and resolves with its reply of the same `id`. */
export function ask<T>(worker: ChildProcess, message: Record<string, unknown>, timeoutMs = 600_000): Promise<T> {
  const id = randomBytes(6).toString('hex');
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`worker ${worker.pid} did not answer ${String(message.type)} in ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (reply: { id?: string; error?: string; result?: T }) => {
      if (reply?.id !== id) return;
      cleanup();
      if (reply.error) reject(new Error(reply.error));
      else resolve(reply.result as T);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`worker ${worker.pid} exited (${code}) during ${String(message.type)}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    worker.send({ ...message, id });
  });
}

/** Worker side of `ask`: answers each request with its handler's result (or error). */
export function serveRequests(handlers: Record<string, (message: any) => Promise<unknown>>): void {
  process.on('message', (message: { id: string; type: string }) => {
    const handler = handlers[message.type];
    if (!handler) return void process.send!({ id: message.id, error: `unknown request ${message.type}` });
    handler(message).then(
      (result) => process.send!({ id: message.id, result }),
      (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  });
  // The parent's end is ours: never outlive it.
  process.on('disconnect', () => process.exit(0));
}

/** The last line of a crash's output that names the error (e.g. `TypeError: ...`). */
export function lastErrorLine(output: string): string {
  const lines = output.split('\n').filter((line) => /\b\w*Error\b[:\s]/.test(line) && !/^\s+at /.test(line));
  return (lines.at(-1) ?? output.split('\n').filter(Boolean).at(-1) ?? '').trim().slice(0, 300);
}

// ---------------------------------------------------------------------------------------------
// Results.

export interface Figure {
  /** What was measured, as printed in the summary table. */
  metric: string;
  value: number | string | null;
  unit: string;
  /** The issue's target for this figure, as text (e.g. "<= 100"). */
  target?: string;
  pass?: boolean;
}

export interface BenchResult {
  name: string;
  title: string;
  startedAt: string;
  seconds: number;
  figures: Figure[];
  /** Everything else the benchmark measured (levels, samples, CPU, notes). */
  details: Record<string, unknown>;
}

export function writeResult(result: BenchResult): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${result.name}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function machineInfo(): Record<string, unknown> {
  const cpus = os.cpus();
  const version = (command: string, args: string[]) => {
    try {
      return execFileSync(command, args, { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGb: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: version('psql', ['--version']),
    redis: version('redis-server', ['--version']).split(' ').slice(0, 3).join(' '),
  };
}

/** Runs a benchmark's body, timing it and writing its result file; exits non-zero on failure. */
export async function runBenchmark(name: string, title: string, body: (result: BenchResult) => Promise<void>): Promise<void> {
  const started = performance.now();
  const result: BenchResult = { name, title, startedAt: new Date().toISOString(), seconds: 0, figures: [], details: {} };
  let failed = false;
  try {
    await body(result);
  } catch (error) {
    failed = true;
    result.details.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`${name} failed:`, error);
  }
  result.seconds = round((performance.now() - started) / 1000, 1);
  const file = writeResult(result);
  log(`${name}: wrote ${path.relative(ROOT, file)} (${result.seconds} s)`);
  process.exit(failed ? 1 : 0);
}
