/**
 * Benchmark 2: live co-editing. 1,000 / 2,000 / 3,000 connected editors, 3 per plan step, each
 * a real @hocuspocus/provider client plus a Socket.IO connection with presence, in client
 * processes apart from the server (coedit.worker.ts). Each editor appends a small token to its
 * step's typed answer every second; measured: edit-to-peer latency (median / p95 / p99), edits
 * that never reached a peer and documents whose three copies differ at the end (both must be 0),
 * and the server's CPU and resident memory.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { TYPED_STEPS, insertEditors, type Editor } from './fixtures.ts';
import { cpuDisturbance, CpuSampler, waitForQuiet, type CpuWindow } from './cpu.ts';
import { QUICK } from './config.ts';
import { ask, forkWorker, lastErrorLine, stopChild } from './workers.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { createDatabase, pg } from './postgres.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { postgresPidsOf } from './pgActivity.ts';
import { round, roundSummary, summarize, type Summary } from './stats.ts';
import { serverEnv } from './servers.ts';
import { startServerProcess } from '../../server/src/testing/serverProcess.ts';
import { secondsLeft, wallMs } from './time.ts';
import type { CoEditorSpec } from './coedit.worker.ts';

const LEVELS = (process.env.BENCH_COEDIT_LEVELS ?? '1000,2000,3000').split(',').map(Number);
const PER_STEP = 3;
const WORKERS = Number(process.env.BENCH_COEDIT_WORKERS ?? 2);
const PHASE = QUICK ? { warmupMs: 3_000, measureMs: 8_000 } : { warmupMs: 5_000, measureMs: 15_000 };
const INTERVAL_MS = 1_000;
const P99_TARGET_MS = 100;
/** Editors opening at once per worker while the level connects. */
const CONNECT_CONCURRENCY = 100;

interface DocumentState {
  index: number;
  document: string;
  sent: number;
  hash: string;
  seen: Record<number, number>;
  unsynced: number;
  connected: boolean;
}

interface CoeditLevel {
  editors: number;
  documents: number;
  connect: { seconds: number; synced: number; joined: number; authFailures: string[] };
  editsSent: number;
  editsPerSecond: number;
  deliveriesMeasured: number;
  latencyMs: Summary;
  /** Edit copies (edit × peer) missing from a peer's final document. */
  droppedEdits: number;
  unconvergedDocuments: number;
  clients: { eventLoopDelayP99Ms: number[]; sendLagP99Ms: number[]; lateSends: number };
  /** Client-side view at the end: connection losses during the level, still not connected, unacknowledged changes. */
  connections: { closes: number; editorsThatLostConnection: number; notConnectedNow: number; unsyncedChanges: number };
  /** The server's own log lines (warn and above) when the level lost edits. */
  serverLog?: string;
  /** The server process ended during the level (a crash): its exit code or signal and last error line. */
  serverExited?: string;
  cpu: CpuWindow;
  serverRssMb: number;
  held: boolean;
  note?: string;
}

function verify(states: DocumentState[]) {
  const byDocument = new Map<string, DocumentState[]>();
  for (const state of states) byDocument.set(state.document, [...(byDocument.get(state.document) ?? []), state]);
  let dropped = 0;
  let unconverged = 0;
  for (const peers of byDocument.values()) {
    let bad = new Set(peers.map((p) => p.hash)).size > 1 || peers.some((p) => !p.connected);
    for (const author of peers) {
      for (const peer of peers) {
        const missing = author.sent - (peer.seen[author.index] ?? 0);
        if (missing > 0) {
          dropped += missing;
          bad = true;
        }
      }
    }
    if (bad) unconverged++;
  }
  return { dropped, unconverged, documents: byDocument.size };
}

type Connections = CoeditLevel['connections'];

async function runLevel(
  server: { url: string; child: { pid?: number; exitCode: number | null; signalCode: NodeJS.Signals | null }; output(): string },
  editors: Editor[],
  postgresPids: () => number[],
  questionOf: Map<string, string>,
): Promise<CoeditLevel> {
  const baseUrl = server.url;
  const serverPid = server.child.pid!;
  const workers: ChildProcess[] = [];
  try {
    for (let w = 0; w < WORKERS; w++) workers.push(forkWorker('coedit.worker.ts', { execArgv: ['--max-old-space-size=2048'] }));
    // The three peers of a step are spread over the workers: edits cross process boundaries.
    const assignments: CoEditorSpec[][] = workers.map(() => []);
    editors.forEach((editor, index) => {
      const document = Math.floor(index / PER_STEP);
      assignments[(document + (index % PER_STEP)) % WORKERS]!.push({
        index,
        formId: editor.formId,
        stepKey: editor.stepKey,
        questionId: questionOf.get(editor.stepKey)!,
        token: editor.session.token,
        cookie: editor.session.cookie,
      });
    });
    const connected = await Promise.all(
      workers.map((worker, w) =>
        ask<{ editors: number; synced: number; joined: number; authFailures: string[]; seconds: number }>(
          worker,
          { type: 'connect', baseUrl, editors: assignments[w], concurrency: CONNECT_CONCURRENCY, timeoutMs: 120_000 },
          180_000,
        ),
      ),
    );
    const connect = {
      seconds: Math.max(...connected.map((c) => c.seconds)),
      synced: connected.reduce((n, c) => n + c.synced, 0),
      joined: connected.reduce((n, c) => n + c.joined, 0),
      authFailures: connected.flatMap((c) => c.authFailures),
    };
    log(`${editors.length} co-editors: ${connect.synced} synced, ${connect.joined} joined presence in ${connect.seconds} s`);

    const quiet = await waitForQuiet(8_000);
    const sampler = new CpuSampler({ server: [serverPid], clients: workers.map((w) => w.pid!), postgres: postgresPids });
    const run = randomBytes(3).toString('hex');
    const startAt = wallMs() + 1_000;
    const samplerStart = setTimeout(() => sampler.start(), startAt + PHASE.warmupMs - wallMs());
    let cpu: CpuWindow | undefined;
    const samplerStop = setTimeout(() => (cpu = sampler.stop()), startAt + PHASE.warmupMs + PHASE.measureMs - wallMs());
    const edited = await Promise.all(
      workers.map((worker) =>
        ask<{ editing: number; sent: number; lateSends: number; sendLag: Summary; eventLoopDelayP99Ms: number }>(worker, {
          type: 'edit',
          run,
          startAt,
          intervalMs: INTERVAL_MS,
          ...PHASE,
        }),
      ),
    );
    clearTimeout(samplerStart);
    clearTimeout(samplerStop);
    cpu ??= sampler.stop();
    const collected = await Promise.all(
      workers.map((worker) =>
        ask<{ latencies: Float64Array; receivedOutsideRun: number; documents: DocumentState[]; connection: Connections }>(worker, {
          type: 'collect',
          settleMs: 3_000,
          timeoutMs: 20_000,
        }),
      ),
    );
    const connections: Connections = { closes: 0, editorsThatLostConnection: 0, notConnectedNow: 0, unsyncedChanges: 0 };
    for (const c of collected) for (const key of Object.keys(connections) as (keyof Connections)[]) connections[key] += c.connection[key];
    let check = verify(collected.flatMap((c) => c.documents));
    if (check.unconverged > 0) {
      // Give stragglers one more chance (a slow peer is late, not lost); what remains is reported.
      const again = await Promise.all(
        workers.map((worker) => ask<{ documents: DocumentState[] }>(worker, { type: 'collect', settleMs: 10_000, timeoutMs: 10_000 })),
      );
      check = verify(again.flatMap((c) => c.documents));
    }
    const all = collected.flatMap((c) => Array.from(c.latencies));
    const latency = roundSummary(summarize(all), 1);
    const editsSent = edited.reduce((n, e) => n + e.sent, 0);
    const level: CoeditLevel = {
      editors: editors.length,
      documents: check.documents,
      connect,
      editsSent,
      editsPerSecond: round(editsSent / ((PHASE.warmupMs + PHASE.measureMs) / 1000), 0),
      deliveriesMeasured: all.length,
      latencyMs: latency,
      droppedEdits: check.dropped,
      unconvergedDocuments: check.unconverged,
      clients: {
        eventLoopDelayP99Ms: edited.map((e) => e.eventLoopDelayP99Ms),
        sendLagP99Ms: edited.map((e) => round(e.sendLag.p99, 1)),
        lateSends: edited.reduce((n, e) => n + e.lateSends, 0),
      },
      connections,
      ...(check.dropped > 0 || check.unconverged > 0 ? { serverLog: server.output().slice(-4_000) } : {}),
      ...(server.child.exitCode !== null || server.child.signalCode !== null
        ? { serverExited: `exit ${server.child.exitCode ?? server.child.signalCode}: ${lastErrorLine(server.output())}` }
        : {}),
      cpu,
      serverRssMb: cpu.rssMb.server ?? 0,
      held: latency.p99 <= P99_TARGET_MS && check.dropped === 0 && check.unconverged === 0 && connect.synced === editors.length,
      ...(quiet.busyPercent > 20 ? { note: `machine ${quiet.busyPercent}% busy with other work before the level` } : {}),
    };
    log(
      `${editors.length} co-editors: ${level.editsPerSecond} edits/s, edit-to-peer median ${latency.median} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms ` +
        `(${all.length} deliveries), dropped ${check.dropped}, unconverged ${check.unconverged}/${check.documents}, ` +
        `cpu ${JSON.stringify(cpu.cpuPercent)}, server RSS ${level.serverRssMb} MB, client loop delay p99 ${level.clients.eventLoopDelayP99Ms.join('/')} ms, ` +
        `connections ${JSON.stringify(connections)}` +
        (level.serverExited ? `; SERVER PROCESS ENDED: ${level.serverExited}` : ''),
    );
    return level;
  } finally {
    await Promise.all(workers.map((worker) => ask(worker, { type: 'close' }, 30_000).catch(() => {})));
    for (const worker of workers) await stopChild(worker);
  }
}

await runBenchmark('coedit', 'Live co-editing: Hocuspocus providers + Socket.IO presence, 3 editors per step', async (result: BenchResult) => {
  const database = await createDatabase('coedit');
  const prefix = redisPrefix('coedit');
  const postgres = postgresPidsOf(database.url, database.name);
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const env = serverEnv(database.url, prefix);
    server = await startServerProcess(env);
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    const { editors } = await insertEditors(pool, { label: 'Live', editors: Math.max(...LEVELS), perStep: PER_STEP, steps: TYPED_STEPS });
    await pool.end();
    const questionOf = new Map(TYPED_STEPS.map((s) => [s.step.key, s.questionId]));
    const levels: CoeditLevel[] = [];
    for (const n of LEVELS) {
      if (secondsLeft() < 30 + n / 30) {
        log(`${n} co-editors: skipped, ${Math.round(secondsLeft())} s left of the budget`);
        levels.push({ editors: n, held: false, note: 'skipped: the time budget ran out' } as CoeditLevel);
        continue;
      }
      // A fresh server process per level: its CPU and memory are this level's alone.
      if (!server) server = await startServerProcess(env);
      try {
        levels.push(await runLevel(server, editors.slice(0, n), postgres.pids, questionOf));
      } catch (error) {
        log(`${n} co-editors could not run: ${(error as Error).message}`);
        levels.push({ editors: n, held: false, note: `did not run: ${(error as Error).message.split('\n')[0]}` } as CoeditLevel);
        break;
      } finally {
        await server.stop();
        server = undefined;
      }
    }
    const ran = levels.filter((l) => l.latencyMs);
    for (const level of levels) {
      if (!level.latencyMs) {
        result.figures.push({ metric: `${level.editors} co-editors`, value: level.note ?? 'did not run', unit: '' });
        continue;
      }
      const at3000 = level.editors === 3_000;
      const disturbance = cpuDisturbance(level.cpu);
      const busy = disturbance ? ` [disturbed: ${disturbance}]` : '';
      result.figures.push(
        { metric: `${level.editors} co-editors${busy}: edit-to-peer median / p95`, value: `${level.latencyMs.median} / ${level.latencyMs.p95}`, unit: 'ms' },
        {
          metric: `${level.editors} co-editors: edit-to-peer p99`,
          value: level.latencyMs.p99,
          unit: 'ms',
          target: at3000 ? '<= 100' : undefined,
          pass: at3000 ? level.latencyMs.p99 <= P99_TARGET_MS : undefined,
        },
        {
          metric: `${level.editors} co-editors: dropped edits / unconverged docs`,
          value: `${level.droppedEdits} / ${level.unconvergedDocuments}`,
          unit: 'count',
          target: '0 / 0',
          pass: level.droppedEdits === 0 && level.unconvergedDocuments === 0,
        },
        { metric: `${level.editors} co-editors: server CPU / RSS`, value: `${level.cpu.cpuPercent.server}% / ${level.serverRssMb}`, unit: '% core / MB' },
        // The fleet shares the machine: its CPU and event-loop lag are part of every latency above.
        {
          metric: `${level.editors} co-editors: client fleet CPU / event-loop delay p99`,
          value: `${level.cpu.cpuPercent.clients}% / ${Math.max(...level.clients.eventLoopDelayP99Ms)}`,
          unit: '% core / ms',
        },
      );
      if (level.serverExited)
        result.figures.push({ metric: `${level.editors} co-editors: SERVER PROCESS CRASHED`, value: level.serverExited, unit: '', pass: false });
    }
    const highestHeld = Math.max(0, ...ran.filter((l) => l.held).map((l) => l.editors));
    result.figures.push({
      metric: 'highest level held (p99 <= 100 ms, 0 dropped, 0 unconverged)',
      value: highestHeld,
      unit: 'editors',
      target: '>= 3000',
      pass: highestHeld >= 3_000,
    });
    result.details = { perStep: PER_STEP, workers: WORKERS, phase: PHASE, intervalMs: INTERVAL_MS, connectConcurrencyPerWorker: CONNECT_CONCURRENCY, levels };
  } finally {
    if (server) await server.stop();
    await postgres.stop();
    clearRedisPrefix(prefix);
    await database.drop();
  }
});
