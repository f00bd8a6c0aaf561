/**
 * Benchmark: exporting a fully answered plan as PDF and as DOCX.
 *
 *   npx -y pnpm@10.34.9 exec node tests/bench/exports.bench.ts
 *
 * Starts a server in this process (real PostgreSQL in a fresh database when DATABASE_URL is set,
 * else embedded PGlite; Redis when REDIS_URL is set), fills Harbor View Academy's current plan
 * through the API as its principal (every question type, a 40-row table, a 12-column table, a
 * 20,000-character answer, four scripts), then measures:
 *
 * 1. Per export, the builder functions called directly (read the plan from the database, then
 *    render): EXPORT_RUNS timed runs per format after a warm-up, median / p99 / mean wall time and
 *    median CPU time. Called directly because the HTTP route allows 10 exports a minute per user.
 * 2. Through HTTP, CONCURRENCY clients downloading at once, each a different reader of the plan
 *    (users made for the run, each under its own 10-a-minute budget): exports per second.
 *
 * Prints the figures and writes them as JSON to tests/bench/results/exports.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { currentSchoolYear } from '@csp/shared';
import { startTestServer } from '../../server/src/testing/testServer.ts';
import { signIn } from '../../server/src/testing/signIn.ts';
import type { HttpClient } from '../../server/src/testing/httpClient.ts';
import { loadPlanExport } from '../../server/src/export/planExport.ts';
import { renderPlanPdf } from '../../server/src/export/pdf.ts';
import { renderPlanDocx } from '../../server/src/export/docx.ts';
import { fullPlan, planContextFor } from '../../server/src/testing/fullPlan.ts';
import { round, summarize } from './stats.ts';

const EXPORT_RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 30);
const WARMUP_RUNS = 3;
const CONCURRENCY = 4;
/** Per client and format: with two formats, 2 × 5 = 10 exports, the per-user limit. */
const REQUESTS_PER_CLIENT = 5;
const RESULTS = path.resolve(import.meta.dirname, 'results', 'exports.json');

/** Timed runs as this benchmark records them (run.ts reads the median and p99). */
function summarizeRuns(samples: number[]) {
  const { count, median, p99, mean, max } = summarize(samples);
  return { runs: count, median: round(median), p99: round(p99), mean: round(mean), min: round(Math.min(...samples)), max: round(max) };
}

async function main() {
  const database = process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (embedded)';
  console.log(
    `exports benchmark: ${database}${process.env.REDIS_URL ? ' + Redis' : ''}, node ${process.version}, ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const server = await startTestServer();
  try {
    const principal = await signIn(server.url, 'principal.harbor@example.org');
    const list = await principal.get(`/api/forms?schoolYear=${currentSchoolYear()}`);
    const formId = (list.body.forms as { _id: string; schoolName: string }[]).find((form) => form.schoolName === 'Harbor View Academy')!._id;
    const detail = await principal.get(`/api/forms/${formId}`);
    const bank = await server.services.banks.resolve((detail.body.form ?? detail.body).questionBankVersion ?? null);
    const fixture = fullPlan(bank);
    for (const [index, step] of bank.steps.entries()) {
      const saved = await principal.put(`/api/forms/${formId}/step/${index + 1}`, {
        stepData: { data: fixture.answers.get(step.key), completed: true },
        mergeStrategy: 'last-write-wins',
      });
      if (saved.status !== 200) throw new Error(`filling step ${index + 1}: ${saved.status} ${JSON.stringify(saved.body)}`);
    }
    console.log(`plan ${formId} filled: ${fixture.answered.length} answered questions, ${fixture.tables.length} tables`);

    // 1. The builders, called directly.
    const context = await planContextFor(server.services, 'principal.harbor@example.org', formId);
    const builders = { pdf: renderPlanPdf, docx: renderPlanDocx } as const;
    const perExport: Record<string, unknown> = {};
    const sizes: Record<string, number> = {};
    for (const [format, render] of Object.entries(builders)) {
      const first = performance.now();
      await render(await loadPlanExport(server.services, context));
      const firstMs = performance.now() - first;
      for (let i = 1; i < WARMUP_RUNS; i++) await render(await loadPlanExport(server.services, context));
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < EXPORT_RUNS; i++) {
        const started = performance.now();
        const cpuStarted = process.cpuUsage();
        const file = await render(await loadPlanExport(server.services, context));
        const used = process.cpuUsage(cpuStarted);
        wall.push(performance.now() - started);
        cpu.push((used.user + used.system) / 1000);
        sizes[format] = file.length;
      }
      perExport[format] = { firstExportMs: round(firstMs), wallMs: summarizeRuns(wall), cpuMs: summarizeRuns(cpu), bytes: sizes[format] };
      const summary = summarizeRuns(wall);
      console.log(
        `${format.toUpperCase().padEnd(4)} per export (read + render, ${EXPORT_RUNS} runs): median ${summary.median} ms, p99 ${summary.p99} ms, ` +
          `mean ${summary.mean} ms; CPU median ${summarizeRuns(cpu).median} ms; first export in this process ${round(firstMs)} ms; ${sizes[format]} bytes`,
      );
    }

    // 2. HTTP, CONCURRENCY readers at once. The timed runs above kept this process busy: let the
    // HTTP client notice the keep-alive connections the server closed meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const admin = await signIn(server.url, 'superadmin@example.org');
    const clients: HttpClient[] = [];
    for (let i = 0; i < CONCURRENCY; i++) {
      const email = `bench.export.${i}.${process.pid}@example.org`;
      const created = await admin.post('/api/users/create', { name: `Bench Reader ${i}`, email, level: 2, schoolName: 'Harbor View Academy' });
      if (created.status !== 200) throw new Error(`creating ${email}: ${created.status} ${JSON.stringify(created.body)}`);
      clients.push(await signIn(server.url, email));
    }
    const concurrent: Record<string, unknown> = {};
    for (const format of ['pdf', 'docx'] as const) {
      const latencies: number[] = [];
      const started = performance.now();
      await Promise.all(
        clients.map(async (client) => {
          for (let i = 0; i < REQUESTS_PER_CLIENT; i++) {
            const requestStarted = performance.now();
            const response = await client.request('GET', `/api/forms/${formId}/export/${format}`);
            const body = await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`${format} export: ${response.status} ${Buffer.from(body).toString('utf8', 0, 200)}`);
            latencies.push(performance.now() - requestStarted);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const exports = CONCURRENCY * REQUESTS_PER_CLIENT;
      const latency = summarizeRuns(latencies);
      concurrent[format] = { clients: CONCURRENCY, exports, seconds: round(seconds, 2), exportsPerSecond: round(exports / seconds, 2), latencyMs: latency };
      console.log(
        `${format.toUpperCase().padEnd(4)} HTTP, ${CONCURRENCY} concurrent clients: ${round(exports / seconds, 2)} exports/s ` +
          `(${exports} exports in ${round(seconds, 2)} s; latency median ${latency.median} ms, p99 ${latency.p99} ms)`,
      );
    }

    const result = {
      benchmark: 'exports',
      at: new Date().toISOString(),
      database,
      redis: Boolean(process.env.REDIS_URL),
      node: process.version,
      cores: cpus().length,
      loadAverage: loadavg().map((l) => round(l, 2)),
      plan: { answered: fixture.answered.length, tables: fixture.tables.length, longAnswerChars: 20_000, longTableRows: 40 },
      method: {
        perExport: 'builder functions called in process: loadPlanExport (database read) + render, after warm-up',
        concurrent: `HTTP GET /api/forms/:id/export/:format, ${CONCURRENCY} clients at once, each a different user (the route allows 10 a minute per user)`,
      },
      perExport,
      concurrent,
    };
    mkdirSync(path.dirname(RESULTS), { recursive: true });
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`written ${path.relative(process.cwd(), RESULTS)}`);
  } finally {
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
