/**
 * Benchmark 5: district rollover (POST /api/admin/forms/rollover as a Super Admin) of 1,600
 * schools with fully answered plans, and of 200 schools to show how it grows. Each size rolls a
 * year of its own over to the next, in one database: every school has a principal owning its
 * plan, and every step of every plan is answered (sample answers, as the demo seed writes them).
 */
import { BANK, insertAnsweredPlans, insertSessions, insertUsers, schoolName } from './fixtures.ts';
import { newId } from '../../server/src/storage/ids.ts';
import { CpuSampler, waitForQuiet, type CpuWindow } from './cpu.ts';
import { QUICK } from './config.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { createDatabase, pg } from './postgres.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { postgresPidsOf } from './pgActivity.ts';
import { round } from './stats.ts';
import { serverEnv } from './servers.ts';
import { startServerProcess } from '../../server/src/testing/serverProcess.ts';
import { RawHttpPool } from './rawHttp.ts';

const RUNS: { schools: number; sourceYear: string }[] = QUICK
  ? [
      { schools: 200, sourceYear: '2040-2041' },
      { schools: 1600, sourceYear: '2050-2051' },
    ]
  : [
      { schools: 200, sourceYear: '2040-2041' },
      { schools: 200, sourceYear: '2042-2043' },
      { schools: 1600, sourceYear: '2050-2051' },
    ];
const TARGET_SECONDS_1600 = 10;

const nextYear = (year: string) => {
  const first = Number(year.slice(0, 4)) + 1;
  return `${first}-${first + 1}`;
};

interface RolloverRun {
  schools: number;
  sourceYear: string;
  targetYear: string;
  seconds: number;
  created: number;
  skipped: number;
  errors: number;
  stepRowsCopied: number;
  schoolsPerSecond: number;
  cpu: CpuWindow;
}

await runBenchmark('rollover', 'District rollover of fully answered plans (POST /api/admin/forms/rollover)', async (result: BenchResult) => {
  const database = await createDatabase('rollover');
  const prefix = redisPrefix('rollover');
  const postgres = postgresPidsOf(database.url, database.name);
  const server = await startServerProcess(serverEnv(database.url, prefix, { SEED: 'none' }));
  try {
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    const adminId = newId();
    await insertUsers(pool, [{ id: adminId, email: 'bench.superadmin@example.org', name: 'Bench Superintendent', level: 5, school: 'District Office' }]);
    const [admin] = await insertSessions(pool, [adminId]);
    const started = performance.now();
    for (const [runIndex, run] of RUNS.entries()) {
      const label = `R${runIndex}`;
      const principals = Array.from({ length: run.schools }, (_, i) => ({
        id: newId(),
        email: `principal.${label.toLowerCase()}.${i + 1}@example.org`,
        name: `Principal ${label}-${i + 1}`,
        level: 4,
        school: schoolName(label, i),
      }));
      await insertUsers(pool, principals);
      await insertAnsweredPlans(pool, {
        label,
        count: run.schools,
        schoolYear: run.sourceYear,
        ownerIds: principals.map((p) => p.id),
        principalEmails: principals.map((p) => p.email),
      });
    }
    await pool.query('analyze');
    log(
      `fixture: ${RUNS.map((r) => `${r.schools} schools in ${r.sourceYear}`).join(', ')} (${BANK.steps.length} answered steps each) in ${round((performance.now() - started) / 1000)} s`,
    );

    const http = new RawHttpPool(server.url, 1);
    const headers = `cookie: ${admin!.cookie}\r\norigin: ${server.url}\r\ncontent-type: application/json\r\n`;
    const runs: RolloverRun[] = [];
    for (const run of RUNS) {
      const targetYear = nextYear(run.sourceYear);
      await waitForQuiet(10_000);
      const sampler = new CpuSampler({ server: [server.child.pid!], postgres: postgres.pids });
      sampler.start();
      const began = performance.now();
      const response = await http.request('POST', '/api/admin/forms/rollover', headers, JSON.stringify({ sourceYear: run.sourceYear, targetYear }), 300_000);
      const seconds = (performance.now() - began) / 1000;
      const cpu = sampler.stop();
      if (response.status !== 200) throw new Error(`rollover ${run.sourceYear}: ${response.status} ${response.body.toString().slice(0, 300)}`);
      const body = JSON.parse(response.body.toString()) as { created: unknown[]; skipped: unknown[]; errors: unknown[] };
      const { rows } = await pool.query<{ count: number }>(
        'select count(*)::int as count from plan_steps s join plans p on p.id = s.form_id where p.school_year = $1',
        [targetYear],
      );
      const outcome: RolloverRun = {
        schools: run.schools,
        sourceYear: run.sourceYear,
        targetYear,
        seconds: round(seconds, 2),
        created: body.created.length,
        skipped: body.skipped.length,
        errors: body.errors.length,
        stepRowsCopied: rows[0]!.count,
        schoolsPerSecond: round(run.schools / seconds, 0),
        cpu,
      };
      if (outcome.created !== run.schools) throw new Error(`rollover ${run.sourceYear} created ${outcome.created} of ${run.schools} plans`);
      runs.push(outcome);
      log(
        `rollover of ${run.schools} schools: ${outcome.seconds} s (${outcome.schoolsPerSecond} schools/s, ${outcome.stepRowsCopied} step rows), cpu ${JSON.stringify(cpu.cpuPercent)}`,
      );
    }
    http.destroy();
    await pool.end();

    const small = runs.filter((r) => r.schools === 200);
    const large = runs.filter((r) => r.schools === 1600);
    const best = (list: RolloverRun[]) => Math.min(...list.map((r) => r.seconds));
    result.figures.push(
      { metric: '200 schools: total', value: small.map((r) => r.seconds).join(' / '), unit: 's' },
      { metric: '1,600 schools: total', value: best(large), unit: 's', target: `<= ${TARGET_SECONDS_1600}`, pass: best(large) <= TARGET_SECONDS_1600 },
      { metric: 'growth 200 → 1,600 (8× the schools)', value: round(best(large) / best(small), 1), unit: '× time' },
    );
    result.details = {
      runs,
      stepsPerPlan: BANK.steps.length,
      method: 'one HTTP request per rollover, timed from send to response; each size its own source year in one database',
    };
  } finally {
    await server.stop();
    await postgres.stop();
    clearRedisPrefix(prefix);
    await database.drop();
  }
});
