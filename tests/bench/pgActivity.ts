/**
 * What PostgreSQL does for one benchmark's database while a load runs: the processes working for
 * it (for CPU sampling) and what its backends wait on.
 */
import { pg, type PgPool } from './postgres.ts';
import { round } from './stats.ts';

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
