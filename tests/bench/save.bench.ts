/**
 * Benchmark 1: step save at district load, end to end through HTTP (session, access check, rate
 * limiter, step lock, revision-guarded write), open loop: N editors, each its own user and plan
 * step, each saving every 3 s like the web client (under its 30-per-minute limit), for
 * N = 1,000 / 3,000 / 5,000; then the highest rate held with p99 <= 100 ms and no errors, by a
 * bounded search. The same for the floor (floor-server.ts: only the UPDATE), and the ratio.
 * Before each app level its editors open their steps, unmeasured (`openSteps`): the figures are
 * those of open editors autosaving.
 *
 * Load comes from generator processes (save-load.worker.ts, `BENCH_SAVE_GENERATORS`, one by
 * default); the machine's cores are shared by the generators, the server, PostgreSQL and Redis.
 */
import type { ChildProcess } from 'node:child_process';
import { BANK, insertEditors, type Editor } from './fixtures.ts';

import { cpuDisturbance, CpuSampler, processTree, waitForQuiet, type CpuWindow } from './cpu.ts';
import { QUICK } from './config.ts';
import { ask, forkWorker, lastErrorLine, nextMessage, stopChild } from './workers.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { createDatabase, pg } from './postgres.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { secondsLeft, sleep, wallMs } from './time.ts';
import { PgWaitSampler, postgresPidsOf, type PgActivity } from './pgActivity.ts';
import { round, roundSummary, summarize, type Summary } from './stats.ts';
import { serverEnv } from './servers.ts';
import { startServerProcess } from '../../server/src/testing/serverProcess.ts';

const LEVELS = (process.env.BENCH_SAVE_LEVELS ?? '1000,3000,5000').split(',').map(Number);
/** Editors in the fixture: more than the top level, so the app's search can look above it (each saves every 3 s at most). */
const EDITORS = Math.max(...LEVELS, Number(process.env.BENCH_SAVE_EDITORS ?? 10_000));
const PERIOD_MS = 3_000;
const P99_TARGET_MS = 100;
const LEVEL = QUICK ? { warmupMs: 3_000, measureMs: 8_000 } : { warmupMs: 5_000, measureMs: 20_000 };
const FLOOR_LEVEL = QUICK ? { warmupMs: 3_000, measureMs: 8_000 } : { warmupMs: 4_000, measureMs: 15_000 };
const PROBE = QUICK ? { warmupMs: 3_000, measureMs: 6_000 } : { warmupMs: 4_000, measureMs: 10_000 };
const PROBES = Number(process.env.BENCH_SAVE_PROBES ?? (QUICK ? 2 : 3));
const GENERATORS = Number(process.env.BENCH_SAVE_GENERATORS ?? 1);
const SOCKETS_PER_GENERATOR = Math.round(512 / GENERATORS);
const REQUEST_TIMEOUT_MS = 10_000;
/** How fast editors open their steps before an app level (see `openSteps`). */
const OPEN_PER_SECOND = 500;
/** The floor has no per-user limit: above 5,000 editors every 3 s, the same editors save more often. */
const FLOOR_MAX_RATE = 8_000;

interface GeneratorResult {
  editors: number;
  sent: number;
  measuredSent: number;
  ok: number;
  okPerSecond: number;
  abortedAfterMs: number | null;
  conflicts: number;
  errors: Record<string, number>;
  maxOutstanding: number;
  latencies: Float64Array;
  allLatencies: Float64Array;
  allErrors: Record<string, number>;
  plannedAt: Float64Array;
  sendLag: Summary;
}

interface LevelResult {
  target: 'app' | 'floor';
  editors: number;
  periodMs: number;
  offeredPerSecond: number;
  throughputPerSecond: number;
  latencyMs: Summary;
  errors: number;
  errorKinds: Record<string, number>;
  conflicts: number;
  maxOutstanding: number;
  clientSendLagP99Ms: number;
  /** Stopped early: this many ms into the level, the backlog exceeded a second of requests. */
  overloadedAfterMs: number | null;
  cpu: CpuWindow;
  /** PostgreSQL in the window: active backends by what they waited on, other databases' load, WAL, checkpoints. */
  postgres: PgActivity;
  /** Per second of the measured window: [second, saves, median ms, p99 ms] (stalls show here). */
  timeline: [number, number, number, number][];
  /** Machine busy (other work) just before the level, and how long the benchmark waited for quiet. */
  before: { busyPercent: number; waitedMs: number };
  /** Why the level's figures may reflect other work on the machine (null: undisturbed). */
  disturbed?: string | null;
  held: boolean;
}

async function runLevel(
  target: 'app' | 'floor',
  generators: ChildProcess[],
  sampler: CpuSampler,
  waits: PgWaitSampler,
  editors: number,
  periodMs: number,
  phase: { warmupMs: number; measureMs: number },
): Promise<LevelResult> {
  if (target === 'app') await openSteps(generators, editors);
  const before = await waitForQuiet(8_000);
  const startAt = wallMs() + 1_000;
  const perGenerator = Math.ceil(editors / generators.length);
  // The measured window's CPU; a level stopped before it (overloaded) reports its whole run instead.
  const whole = sampler.clone();
  const wholeStart = setTimeout(() => whole.start(), startAt - wallMs());
  const samplerStart = setTimeout(
    () => {
      sampler.start();
      waits.start();
    },
    startAt + phase.warmupMs - wallMs(),
  );
  let cpu: CpuWindow | undefined;
  let postgres: Promise<PgActivity> | undefined;
  const samplerStop = setTimeout(
    () => {
      cpu = sampler.stop();
      postgres = waits.stop();
    },
    startAt + phase.warmupMs + phase.measureMs - wallMs(),
  );
  const results = await Promise.all(
    generators.map((generator, index) =>
      ask<GeneratorResult>(generator, {
        type: 'run',
        startAt,
        periodMs,
        count: Math.min(perGenerator, editors - index * perGenerator),
        timeoutMs: REQUEST_TIMEOUT_MS,
        abortOutstanding: Math.round((editors / generators.length) * (1000 / periodMs)) + 200,
        seed: 7919 * (index + 1) + editors,
        ...phase,
      }),
    ),
  );
  clearTimeout(wholeStart);
  clearTimeout(samplerStart);
  clearTimeout(samplerStop);
  const wholeCpu = whole.stop();
  cpu ??= wholeCpu;
  postgres ??= waits.stop();
  const postgresActivity = await postgres;
  const bySecond = new Map<number, number[]>();
  for (const r of results) {
    r.plannedAt.forEach((at, i) => {
      const second = Math.floor((at - phase.warmupMs) / 1000);
      if (second < 0) return;
      const bucket = bySecond.get(second) ?? [];
      bucket.push(r.latencies[i]!);
      bySecond.set(second, bucket);
    });
  }
  const timeline = [...bySecond]
    .sort((a, b) => a[0] - b[0])
    .map(([second, values]) => {
      const s = summarize(values);
      return [second, s.count, round(s.median, 1), round(s.p99, 1)] as [number, number, number, number];
    });
  const overloadedAfterMs = results.some((r) => r.abortedAfterMs !== null) ? Math.min(...results.map((r) => r.abortedAfterMs ?? Infinity)) : null;
  // Stopped early (overloaded): what the level got to measure is every request since its start,
  // a lower bound of what the full level would have shown.
  const pick = (r: GeneratorResult) => (overloadedAfterMs !== null ? r.allLatencies : r.latencies);
  const latencies = new Float64Array(results.reduce((n, r) => n + pick(r).length, 0));
  let offset = 0;
  for (const r of results) {
    latencies.set(pick(r), offset);
    offset += pick(r).length;
  }
  const errorKinds: Record<string, number> = {};
  for (const r of results)
    for (const [kind, count] of Object.entries(overloadedAfterMs !== null ? r.allErrors : r.errors)) errorKinds[kind] = (errorKinds[kind] ?? 0) + count;
  const errors = Object.values(errorKinds).reduce((a, b) => a + b, 0);
  const latency = roundSummary(summarize(latencies), 1);
  const level: LevelResult = {
    target,
    editors,
    periodMs,
    offeredPerSecond: round((editors * 1000) / periodMs, 0),
    throughputPerSecond: round(
      results.reduce((n, r) => n + r.okPerSecond, 0),
      0,
    ),
    latencyMs: latency,
    errors,
    errorKinds,
    conflicts: results.reduce((n, r) => n + r.conflicts, 0),
    maxOutstanding: results.reduce((n, r) => n + r.maxOutstanding, 0),
    clientSendLagP99Ms: round(Math.max(...results.map((r) => r.sendLag.p99)), 1),
    overloadedAfterMs,
    cpu,
    postgres: postgresActivity,
    timeline,
    before,
    held: false,
  };
  level.held = level.overloadedAfterMs === null && errors === 0 && latency.p99 <= P99_TARGET_MS;
  level.disturbed = disturbed(level);
  log(
    `${target} ${editors} editors / ${periodMs} ms: offered ${level.offeredPerSecond}/s, ok ${level.throughputPerSecond}/s, ` +
      `median ${latency.median} ms, p99 ${latency.p99} ms, errors ${errors} ${JSON.stringify(errorKinds)}, client lag p99 ${level.clientSendLagP99Ms} ms, ` +
      (level.overloadedAfterMs !== null ? `OVERLOADED (stopped at ${level.overloadedAfterMs} ms), ` : '') +
      `cpu ${JSON.stringify(cpu.cpuPercent)} machine ${cpu.machineBusyPercent}%, postgres ${JSON.stringify(postgresActivity)}, ` +
      `worst seconds ${JSON.stringify([...timeline].sort((a, b) => b[3] - a[3]).slice(0, 3))}`,
  );
  return level;
}

/**
 * Before an app level, its editors open their steps (unmeasured), as the web client does before it
 * autosaves: the level measures the autosaves of open editors, whatever the levels before it left
 * in the server's memory. (A surge of first saves from editors nobody has seen is another load: the
 * server reads each one's session and plan.)
 */
async function openSteps(generators: ChildProcess[], editors: number): Promise<void> {
  const perGenerator = Math.ceil(editors / generators.length);
  const results = await Promise.all(
    generators.map((generator, index) =>
      ask<{ opened: number; failures: Record<string, number> }>(generator, {
        type: 'open',
        count: Math.min(perGenerator, editors - index * perGenerator),
        perSecond: OPEN_PER_SECOND / generators.length,
        timeoutMs: REQUEST_TIMEOUT_MS,
      }),
    ),
  );
  const failed = results.flatMap((result) => Object.entries(result.failures));
  if (failed.length) throw new Error(`editors could not open their steps: ${JSON.stringify(failed)}`);
}

/** Waits until the server answers its health check quickly again (a saturated level leaves a backlog). */
async function settle(url: string | null): Promise<void> {
  if (!url) return sleep(1_500);
  const deadline = Date.now() + 20_000;
  let quick = 0;
  while (Date.now() < deadline && quick < 3) {
    const started = performance.now();
    await fetch(`${url}/api/health`)
      .then((response) => response.arrayBuffer())
      .catch(() => null);
    quick = performance.now() - started < 25 ? quick + 1 : 0;
    await sleep(200);
  }
  await sleep(1_000);
}

/**
 * CPU milliseconds each served save cost each process group: less sensitive than latency to
 * what else the machine runs, so it is what compares versions of the code.
 */
function cpuPerSave(level: LevelResult, groups = ['server', 'postgres', 'redis']): string {
  return groups.map((group) => round(((level.cpu.cpuPercent[group] ?? 0) * 10) / Math.max(1, level.throughputPerSecond), 2)).join(' / ');
}

/**
 * Other work on the machine or the database server during the level (another test suite's
 * processes, its checkpoints, its queries): such a level says little about this code.
 */
function disturbed(level: LevelResult): string | null {
  const reasons = [
    cpuDisturbance(level.cpu) ?? '',
    level.postgres.checkpoints > 0 ? `${level.postgres.checkpoints} checkpoint(s)` : '',
    level.postgres.otherDatabasesActive > 0.2 ? `other databases had ${level.postgres.otherDatabasesActive} active queries on average` : '',
  ].filter(Boolean);
  return reasons.length ? reasons.join(', ') : null;
}

/** A probe that failed while disturbed is repeated once (after waiting for quiet); both are kept. */
async function probeOnce(run: () => Promise<LevelResult>, discarded: LevelResult[]): Promise<LevelResult> {
  const first = await run();
  const reason = first.held ? null : disturbed(first);
  if (!reason) return first;
  if (secondsLeft() < 100) {
    log(`not held while disturbed (${reason}); no time left to repeat it`);
    return first;
  }
  log(`not held while disturbed (${reason}): repeating once`);
  discarded.push(first);
  await waitForQuiet(20_000);
  return run();
}

type HeldRate = Awaited<ReturnType<typeof searchHeldRate>>;
/** No rate tried failed: the real limit lies higher. */
const isLowerBound = (search: HeldRate) => search.notHeldPerSecond === null;

/**
 * The highest rate held (p99 <= 100 ms, no errors): between the highest level held and the
 * lowest not held, bisect (or grow by half above the highest held, up to `maxRate`).
 */
async function searchHeldRate(tested: LevelResult[], maxRate: number, probe: (rate: number) => Promise<LevelResult>, reserveSeconds: number) {
  const discarded: LevelResult[] = [];
  const rateOf = (level: LevelResult) => (level.editors * 1000) / level.periodMs;
  let low = Math.max(0, ...tested.filter((l) => l.held).map(rateOf));
  const notHeld = tested.filter((l) => !l.held && rateOf(l) > low).map(rateOf);
  let high = notHeld.length ? Math.min(...notHeld) : Infinity;
  const probes: LevelResult[] = [];
  for (let i = 0; i < PROBES; i++) {
    // Keep inside the runner's budget: the floor still has to run after the app's search.
    if (secondsLeft() < reserveSeconds) break;
    let next: number;
    if (high === Infinity) {
      if (low >= maxRate) break;
      next = Math.min(maxRate, Math.round((low * 1.5) / 10) * 10);
    } else {
      if (high - low <= Math.max(25, high * 0.08)) break;
      next = Math.round((low + high) / 2 / 10) * 10;
    }
    const level = await probeOnce(() => probe(next), discarded);
    probes.push(level);
    if (level.held) low = next;
    else high = next;
  }
  return {
    heldPerSecond: low,
    /** None when no rate tried failed: then the real limit lies higher (the search reached its maximum or ran out of time or probes). */
    notHeldPerSecond: high === Infinity ? null : high,
    probes,
    disturbedAndRepeated: discarded,
  };
}

await runBenchmark('save', 'Step save at district load (open loop, HTTP end to end) vs. the single-UPDATE floor', async (result: BenchResult) => {
  const database = await createDatabase('save');
  const prefix = redisPrefix('save');
  const generators: ChildProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  let floor: ChildProcess | undefined;
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    server = await startServerProcess(serverEnv(database.url, prefix));
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    const fixtureStarted = performance.now();
    const { editors } = await insertEditors(pool, {
      label: 'Save',
      editors: EDITORS,
      perStep: 1,
      steps: BANK.steps.map((step, index) => ({ step, stepNumber: index + 1 })),
    });
    await pool.end();
    log(
      `fixture: ${editors.length} editors on ${Math.ceil(editors.length / BANK.steps.length)} answered plans in ${round((performance.now() - fixtureStarted) / 1000)} s`,
    );

    const specs = (list: Editor[]) => list.map((e) => ({ formId: e.formId, stepNumber: e.stepNumber, school: e.school, cookie: e.session.cookie }));
    for (let g = 0; g < GENERATORS; g++) generators.push(forkWorker('save-load.worker.ts'));
    const perGenerator = Math.ceil(editors.length / GENERATORS);
    await Promise.all(
      generators.map((generator, g) =>
        ask(generator, {
          type: 'init',
          baseUrl: server!.url,
          maxSockets: SOCKETS_PER_GENERATOR,
          editors: specs(editors.slice(g * perGenerator, (g + 1) * perGenerator)),
        }),
      ),
    );

    // The app: N = 1,000 / 3,000 / 5,000 editors, then the bounded search.
    const appPid = server.child.pid!;
    const postgres = postgresPidsOf(database.url, database.name);
    cleanups.push(() => postgres.stop());
    const sampler = new CpuSampler({ server: () => processTree(appPid), generators: generators.map((g) => g.pid!), postgres: postgres.pids });
    const waits = new PgWaitSampler(database.url, database.name);
    cleanups.push(() => waits.end());
    const app: LevelResult[] = [];
    const crashed = () => server!.child.exitCode !== null || server!.child.signalCode !== null;
    for (const n of LEVELS) {
      app.push(await runLevel('app', generators, sampler, waits, n, PERIOD_MS, LEVEL));
      if (crashed()) break;
      await settle(server.url);
    }
    const appSearch = await searchHeldRate(
      app,
      EDITORS / (PERIOD_MS / 1000),
      async (rate) => {
        if (crashed()) throw new Error(`the app server process ended: ${lastErrorLine(server!.output())}`);
        const level = await runLevel('app', generators, sampler, waits, Math.round((rate * PERIOD_MS) / 1000), PERIOD_MS, PROBE);
        await settle(server!.url);
        return level;
      },
      150,
    );
    if (crashed()) {
      result.figures.push({
        metric: 'APP SERVER PROCESS CRASHED',
        value: `exit ${server.child.exitCode ?? server.child.signalCode}: ${lastErrorLine(server.output())}`,
        unit: '',
        pass: false,
      });
      result.details.appServerLog = server.output().slice(-4_000);
    }
    log(`app: highest rate held ${appSearch.heldPerSecond}/s${isLowerBound(appSearch) ? ' (every tested rate held)' : ''}`);
    await server.stop();
    server = undefined;

    // The floor, at the same rates, on the same rows; then its own search (no per-user limit there).
    floor = forkWorker('floor-server.ts', { env: { DATABASE_URL: database.url } });
    const { port } = await nextMessage<{ port: number }>(floor, 'listening');
    const floorUrl = `http://127.0.0.1:${port}`;
    await Promise.all(generators.map((generator) => ask(generator, { type: 'retarget', baseUrl: floorUrl, maxSockets: SOCKETS_PER_GENERATOR })));
    const floorSampler = new CpuSampler({ server: [floor.pid!], generators: generators.map((g) => g.pid!), postgres: postgres.pids });
    const floorLevels: LevelResult[] = [];
    for (const n of LEVELS) {
      floorLevels.push(await runLevel('floor', generators, floorSampler, waits, n, PERIOD_MS, FLOOR_LEVEL));
      await settle(null);
    }
    const floorSearch = await searchHeldRate(
      floorLevels,
      FLOOR_MAX_RATE,
      async (rate) => {
        const level = await runLevel('floor', generators, floorSampler, waits, EDITORS, round((EDITORS * 1000) / rate, 0), PROBE);
        await settle(null);
        return level;
      },
      40,
    );
    log(`floor: highest rate held ${floorSearch.heldPerSecond}/s${isLowerBound(floorSearch) ? ' (every tested rate held)' : ''}`);

    // A rate held without a failing one above it is a lower bound, and so bounds the ratio.
    const heldRate = (search: HeldRate) => (isLowerBound(search) ? `>= ${round(search.heldPerSecond, 0)}` : round(search.heldPerSecond, 0));
    const ratioValue = floorSearch.heldPerSecond > 0 ? round(appSearch.heldPerSecond / floorSearch.heldPerSecond, 2) : null;
    const [appBound, floorBound] = [isLowerBound(appSearch), isLowerBound(floorSearch)];
    const ratio =
      ratioValue === null || appBound === floorBound ? (appBound ? '? (both lower bounds)' : ratioValue) : `${floorBound ? '<=' : '>='} ${ratioValue}`;
    const bound = (level: LevelResult, value: number) => (level.overloadedAfterMs !== null ? `>= ${value}` : value);
    for (const level of app) {
      const rate = round((level.editors * 1000) / PERIOD_MS, 0);
      const top = level.editors === 5_000;
      const label = `${level.editors} editors (${rate}/s)${disturbed(level) ? ' [disturbed]' : ''}`;
      result.figures.push(
        {
          metric: `${label}: median / p99`,
          value: `${bound(level, level.latencyMs.median)} / ${bound(level, level.latencyMs.p99)}`,
          unit: 'ms',
          ...(top ? { target: 'p99 <= 100', pass: level.held } : {}),
        },
        {
          metric: `${label}: served${level.overloadedAfterMs !== null ? ` (overloaded: stopped after ${round(level.overloadedAfterMs / 1000, 1)} s)` : ''}`,
          value: level.throughputPerSecond,
          unit: 'saves/s',
        },
        {
          metric: `${label}: errors`,
          value: level.errors,
          unit: 'requests',
          ...(top ? { target: '0', pass: level.errors === 0 && level.overloadedAfterMs === null } : {}),
        },
      );
      if (level.overloadedAfterMs === null)
        result.figures.push({ metric: `${label}: CPU per save, server / PostgreSQL / Redis`, value: cpuPerSave(level), unit: 'ms' });
    }
    for (const level of floorLevels) {
      const rate = round((level.editors * 1000) / PERIOD_MS, 0);
      result.figures.push({
        metric: `floor ${rate}/s: median / p99${level.overloadedAfterMs !== null ? ' (overloaded)' : ''}${disturbed(level) ? ' [disturbed]' : ''}`,
        value: `${bound(level, level.latencyMs.median)} / ${bound(level, level.latencyMs.p99)}`,
        unit: 'ms',
      });
      if (level.overloadedAfterMs === null)
        result.figures.push({ metric: `floor ${rate}/s: CPU per save, server / PostgreSQL`, value: cpuPerSave(level, ['server', 'postgres']), unit: 'ms' });
    }
    result.figures.push(
      {
        metric: 'app: highest rate held (p99 <= 100 ms, 0 errors)',
        value: heldRate(appSearch),
        unit: 'saves/s',
        target: '>= 1667',
        pass: appSearch.heldPerSecond >= 1_666,
      },
      {
        metric: 'floor: highest rate held',
        value: heldRate(floorSearch),
        unit: 'saves/s',
      },
      { metric: 'app / floor sustainable rate', value: ratio, unit: 'ratio' },
    );
    result.details = {
      ...result.details,
      editors: EDITORS,
      periodMs: PERIOD_MS,
      phases: { level: LEVEL, floorLevel: FLOOR_LEVEL, probe: PROBE },
      generators: GENERATORS,
      socketsPerGenerator: SOCKETS_PER_GENERATOR,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      app: { levels: app, search: appSearch },
      floor: { levels: floorLevels, search: floorSearch },
      ratio,
    };
  } finally {
    for (const cleanup of cleanups) await cleanup();
    for (const generator of generators) await stopChild(generator);
    if (floor) await stopChild(floor);
    if (server) await server.stop();
    clearRedisPrefix(prefix);
    await database.drop();
  }
});
