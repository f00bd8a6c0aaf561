/**
 * `pnpm bench`: runs every benchmark in sequence against the machine's PostgreSQL and Redis
 * (started when down), each as its own process under a time budget, then prints one table of
 * every figure and writes tests/bench/results/summary.json (each benchmark writes its own
 * results/<name>.json). Unattended: a benchmark that fails or overruns is stopped, its databases
 * and keys are cleaned up, and the others still run. Nothing here asserts on time.
 *
 *   BENCH_ONLY=save,rollover   run only these
 *   BENCH_QUICK=1              shorter phases (trying the suite out; not for recorded figures)
 *   BENCH_PROFILE=1            benchmark servers write CPU profiles to results/profiles
 *   BENCH_WORKERS=2            the app on PostgreSQL + Redis runs as a primary and 2 workers
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { BenchResult, Figure } from './results.ts';

const RUN_ID = randomBytes(3).toString('hex');
process.env.BENCH_RUN_ID = RUN_ID;
process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.REDIS_URL ||= 'redis://127.0.0.1:6379';
// Loaded after the environment above is set: config.ts reads BENCH_RUN_ID and the service URLs.
const [{ BENCH_DIR, RESULTS_DIR, ROOT }, { dropRunDatabases }, { clearRedisPrefix }, { machineInfo }, { round }] = await Promise.all([
  import('./config.ts'),
  import('./postgres.ts'),
  import('./redis.ts'),
  import('./results.ts'),
  import('./stats.ts'),
]);

/** The whole suite stays under 15 minutes: budgets are cut to what is left. */
const SUITE_BUDGET_S = Number(process.env.BENCH_BUDGET_SECONDS ?? 14 * 60 + 30);

interface Benchmark {
  name: string;
  file: string;
  title: string;
  /** Seconds it may take; `minimum` is what it needs to be worth starting. */
  budget: number;
  minimum: number;
  /** For benchmarks that write their own result format (exports.bench.ts): figures from it. */
  adapt?: (raw: any) => Figure[];
}

const BENCHMARKS: Benchmark[] = [
  { name: 'save', file: 'save.bench.ts', title: '1. Step save at district load', budget: 400, minimum: 150 },
  { name: 'coedit', file: 'coedit.bench.ts', title: '2. Live co-editing', budget: 540, minimum: 90 },
  { name: 'fanout', file: 'fanout.bench.ts', title: '3. Socket.IO fan-out across two processes', budget: 75, minimum: 40 },
  { name: 'exports', file: 'exports.bench.ts', title: '4. Export of a fully answered plan', budget: 150, minimum: 60, adapt: exportFigures },
  { name: 'rollover', file: 'rollover.bench.ts', title: '5. District rollover', budget: 100, minimum: 45 },
  { name: 'coldstart', file: 'coldstart.bench.ts', title: '6. Cold start', budget: 90, minimum: 40 },
  { name: 'ceilings', file: 'ceilings.bench.ts', title: '7. PostgreSQL and Redis ceilings', budget: 90, minimum: 30 },
  { name: 'pageweight', file: 'pageweight.bench.ts', title: '8. Page weight in Chromium', budget: 120, minimum: 60 },
  { name: 'history', file: 'history.bench.ts', title: '9. Answer history at district size', budget: 600, minimum: 180 },
  { name: 'mail', file: 'mail.bench.ts', title: '10. Deadline reminders and mail', budget: 180, minimum: 60 },
  { name: 'district', file: 'district.bench.ts', title: '11. Admin pages and dashboard at district size', budget: 240, minimum: 90 },
];

/** exports.bench.ts (written by another engineer) records its own shape; these are its figures. */
function exportFigures(raw: any): Figure[] {
  const figures: Figure[] = [];
  const per = raw?.perExport ?? {};
  for (const format of ['pdf', 'docx']) {
    const wall = per[format]?.wallMs;
    if (!wall) continue;
    figures.push({
      metric: `${format.toUpperCase()} per export (read + render) median / p99`,
      value: `${wall.median} / ${wall.p99}`,
      unit: 'ms',
      ...(format === 'pdf' ? { target: '<= 150 (median)', pass: wall.median <= 150 } : {}),
    });
    if (per[format]?.cpuMs) figures.push({ metric: `${format.toUpperCase()} CPU per export median`, value: per[format].cpuMs.median, unit: 'ms' });
  }
  for (const format of ['pdf', 'docx']) {
    const concurrent = raw?.concurrent?.[format];
    if (!concurrent) continue;
    figures.push({
      metric: `${format.toUpperCase()} over HTTP, ${concurrent.clients} concurrent`,
      value: concurrent.exportsPerSecond,
      unit: 'exports/s',
    });
    if (concurrent.latencyMs)
      figures.push({
        metric: `${format.toUpperCase()} over HTTP latency median / p99`,
        value: `${concurrent.latencyMs.median} / ${concurrent.latencyMs.p99}`,
        unit: 'ms',
      });
  }
  return figures;
}

function servicesUp(): boolean {
  try {
    const pgUrl = new URL(process.env.DATABASE_URL!);
    execFileSync('pg_isready', ['-q', '-h', pgUrl.hostname, '-p', pgUrl.port || '5432'], { stdio: 'ignore' });
    const redisUrl = new URL(process.env.REDIS_URL!);
    return execFileSync('redis-cli', ['-h', redisUrl.hostname, '-p', redisUrl.port || '6379', 'ping'], { encoding: 'utf8' }).trim() === 'PONG';
  } catch {
    return false;
  }
}

/** The benchmark running now (its process group), for a clean stop when the suite itself is stopped. */
let current: { pid: number } | null = null;
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`\nsuite stopped (${signal}): stopping the running benchmark and cleaning up`);
    if (current) {
      try {
        process.kill(-current.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    dropRunDatabases()
      .catch(() => [])
      .then(() => clearRedisPrefix(`csp-bench-${RUN_ID}-`))
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

/** Runs one benchmark as its own process group; stops the whole group when it overruns. */
function runOne(benchmark: Benchmark, seconds: number): Promise<{ status: 'ok' | 'failed' | 'timed out'; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(BENCH_DIR, benchmark.file)], {
      cwd: ROOT,
      stdio: 'inherit',
      detached: true,
      // A benchmark that can trade depth for time (the searches) keeps inside its budget.
      env: { ...process.env, BENCH_SECONDS: String(seconds) },
    });
    current = { pid: child.pid! };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.log(`\n${benchmark.name}: over its ${seconds} s budget; stopping it`);
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 8_000).unref();
    }, seconds * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      current = null;
      // Whatever it started (servers, workers) goes with it.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // none left
      }
      resolve({ status: timedOut ? 'timed out' : code === 0 ? 'ok' : 'failed', seconds: round((performance.now() - started) / 1000, 1) });
    });
  });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

const suiteStarted = performance.now();
const startedAt = new Date();
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const selected = BENCHMARKS.filter((b) => !only || only.includes(b.name));
console.log(`benchmark suite ${RUN_ID}: ${selected.map((b) => b.name).join(', ')}; budget ${SUITE_BUDGET_S} s`);
if (!servicesUp()) {
  console.log('PostgreSQL or Redis is down: starting them (scripts/ensure-services.sh)');
  execFileSync('bash', [path.join(ROOT, 'scripts/ensure-services.sh')], { stdio: 'inherit' });
}
const machine = machineInfo();
console.log(`machine: ${JSON.stringify(machine)}`);
/** The code measured: the commit and any uncommitted changes to it (figures belong to a version). */
function codeVersion(): { commit: string; uncommitted: string[] } {
  try {
    const commit = execFileSync('git', ['-C', ROOT, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).trim().slice(0, 120);
    const uncommitted = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'server', 'shared'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((line) => line.trim());
    return { commit, uncommitted };
  } catch {
    return { commit: 'unknown', uncommitted: [] };
  }
}
const code = codeVersion();
console.log(`code: ${code.commit}${code.uncommitted.length ? ` (+ uncommitted: ${code.uncommitted.join(', ')})` : ''}`);

const outcomes: { benchmark: Benchmark; status: string; seconds: number; result: BenchResult | null }[] = [];
for (const [index, benchmark] of selected.entries()) {
  const elapsed = (performance.now() - suiteStarted) / 1000;
  const reserved = selected.slice(index + 1).reduce((sum, b) => sum + b.minimum, 0);
  const allowed = Math.floor(Math.min(benchmark.budget, SUITE_BUDGET_S - elapsed - reserved));
  const file = path.join(BENCH_DIR, benchmark.file);
  if (!existsSync(file)) {
    outcomes.push({ benchmark, status: 'missing', seconds: 0, result: null });
    console.log(`\n=== ${benchmark.title}: ${benchmark.file} does not exist; skipped`);
    continue;
  }
  if (allowed < benchmark.minimum) {
    outcomes.push({ benchmark, status: 'skipped (suite budget)', seconds: 0, result: null });
    console.log(`\n=== ${benchmark.title}: skipped, ${allowed} s left for it`);
    continue;
  }
  console.log(`\n=== ${benchmark.title} (${benchmark.file}, budget ${allowed} s)`);
  const outcome = await runOne(benchmark, allowed);
  if (outcome.status !== 'ok') {
    const dropped = await dropRunDatabases().catch(() => []);
    if (dropped.length) console.log(`dropped leftover databases: ${dropped.join(', ')}`);
    clearRedisPrefix(`csp-bench-${RUN_ID}-`);
  }
  let result: BenchResult | null = null;
  const resultFile = path.join(RESULTS_DIR, `${benchmark.name}.json`);
  if (existsSync(resultFile)) {
    const raw = JSON.parse(readFileSync(resultFile, 'utf8'));
    const at = new Date(raw.startedAt ?? raw.at ?? 0);
    if (at >= startedAt) {
      result = benchmark.adapt
        ? { name: benchmark.name, title: benchmark.title, startedAt: at.toISOString(), seconds: outcome.seconds, figures: benchmark.adapt(raw), details: raw }
        : (raw as BenchResult);
    }
  }
  const status = outcome.status === 'failed' && result && !result.details?.error ? 'exited with an error after writing its results' : outcome.status;
  outcomes.push({ benchmark, status, seconds: outcome.seconds, result });
}

const totalSeconds = round((performance.now() - suiteStarted) / 1000, 0);
const rows: string[][] = [['Benchmark', 'Figure', 'Value', 'Unit', 'Target', 'Met']];
for (const { benchmark, status, result } of outcomes) {
  const figures = result?.figures ?? [];
  if (figures.length === 0)
    rows.push([
      benchmark.title,
      `(${status}${result?.details?.error ? `: ${String(result.details.error).split('\n')[0]!.slice(0, 80)}` : ''})`,
      '',
      '',
      '',
      '',
    ]);
  figures.forEach((figure, i) =>
    rows.push([
      i === 0 ? benchmark.title : '',
      figure.metric,
      figure.value === null ? '-' : String(figure.value),
      figure.unit,
      figure.target ?? '',
      figure.pass === undefined ? '' : figure.pass ? 'yes' : 'NO',
    ]),
  );
  if (figures.length && status !== 'ok') rows.push(['', `(${status})`, '', '', '', '']);
}
console.log(`\n${table(rows)}\n`);
console.log(`suite ${RUN_ID}: ${totalSeconds} s in all (${outcomes.map((o) => `${o.benchmark.name} ${o.seconds} s ${o.status}`).join(', ')})`);

mkdirSync(RESULTS_DIR, { recursive: true });
const summary = {
  run: RUN_ID,
  startedAt: startedAt.toISOString(),
  totalSeconds,
  command: 'cd /work/main && npx -y pnpm@10.34.9 bench',
  machine,
  code,
  note: 'Load generators and client fleets run on the same machine as the servers, PostgreSQL and Redis: they share its cores.',
  benchmarks: outcomes.map(({ benchmark, status, seconds, result }) => ({
    name: benchmark.name,
    title: benchmark.title,
    file: benchmark.file,
    status,
    seconds,
    figures: result?.figures ?? [],
  })),
};
writeFileSync(path.join(RESULTS_DIR, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`wrote ${path.relative(ROOT, path.join(RESULTS_DIR, 'summary.json'))}`);
