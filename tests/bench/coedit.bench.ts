/**
 * Benchmark 2: live co-editing. 1,000 / 2,000 / 3,000 connected editors, 3 per plan step, each
 * a real @hocuspocus/provider client (coedit.worker.ts) plus a Socket.IO connection with
 * presence (presence.worker.ts), in client processes apart from the server. Each editor appends a
 * small token to its step's typed answer every second; measured: edit-to-peer latency (median /
 * p95 / p99), edits that never reached a peer and documents whose three copies differ at the end
 * (both must be 0), and the server's CPU and resident memory.
 *
 * The floor: at 1,000 and 2,000 editors the same fleet, edits and phases also run against a bare
 * @hocuspocus/server (coedit-floor-server.ts) right after the app's level, in three rounds of app
 * then floor, and the app's server CPU per edit and latency are given as ratios of the rounds'
 * medians. The floor has no Socket.IO: its levels run no presence process, and the editing fleet
 * is the same program against both.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { TYPED_STEPS, insertEditors, stepDocumentSeed, type Editor } from './fixtures.ts';
import { cpuDisturbance, CpuSampler, processTree, waitForQuiet, type CpuWindow } from './cpu.ts';
import { QUICK } from './config.ts';
import { ask, forkWorker, lastErrorLine, nextMessage, stopChild } from './workers.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { createDatabase, pg } from './postgres.ts';
import { log, runBenchmark, type BenchResult, type Figure } from './results.ts';
import { postgresPidsOf } from './pgActivity.ts';
import { round, roundSummary, summarize, type Summary } from './stats.ts';
import { serverEnv } from './servers.ts';
import { startServerProcess, type ServerProcess } from '../../server/src/testing/serverProcess.ts';
import { secondsLeft, wallMs } from './time.ts';
import type { CoEditorSpec } from './coedit.worker.ts';
import type { PresenceSpec } from './presence.worker.ts';

const LEVELS = (process.env.BENCH_COEDIT_LEVELS ?? '1000,2000,3000').split(',').map(Number);
/** Levels also run against the floor (the bare library). */
const FLOOR_LEVELS = (process.env.BENCH_COEDIT_FLOOR_LEVELS ?? '1000,2000').split(',').map(Number);
/**
 * App and floor alternate this many times at each floor level, and the ratios come from the
 * rounds' medians: one 15 s window's p99 is set by a few pauses (a scavenge, a burst of the
 * fleet's own work) and swung 4× between runs of the same code, for the floor as for the app.
 */
const ROUNDS = Number(process.env.BENCH_COEDIT_ROUNDS ?? 3);
/** The issue's bound on app ÷ floor (server CPU per edit, latency). */
const FLOOR_RATIO_TARGET = 1.5;
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

/** The server a level runs against: the app (main.ts with PostgreSQL and Redis) or the floor. */
interface Target {
  kind: 'app' | 'floor';
  url: string;
  child: ChildProcess;
  /** What the process printed (the floor prints into the bench's own output). */
  output?(): string;
}

interface CoeditLevel {
  target: Target['kind'];
  editors: number;
  /** Which of the app-and-floor rounds at this level (1 for a level without a floor). */
  round: number;
  documents: number;
  /** `joined`: editors whose presence joined their plan (none on the floor). */
  connect: { seconds: number; synced: number; joined: number; authFailures: string[] };
  editsSent: number;
  editsPerSecond: number;
  /**
   * Edits the server relayed inside the measured window (the CPU window): their copies that
   * reached a peer in it, over the peers per edit. A server that falls behind relays fewer than
   * were sent, and its CPU in the window went to those.
   */
  editsRelayed: number;
  serverCpuMsPerEdit: number;
  deliveriesMeasured: number;
  latencyMs: Summary;
  /** Edit copies (edit × peer) missing from a peer's final document. */
  droppedEdits: number;
  unconvergedDocuments: number;
  clients: { eventLoopDelayP99Ms: number[]; sendLagP99Ms: number[]; lateSends: number };
  /**
   * Client-side view at the end: connection losses during the level, still not connected,
   * unacknowledged changes, and presence connections that dropped after joining.
   */
  connections: { closes: number; editorsThatLostConnection: number; notConnectedNow: number; unsyncedChanges: number; presenceLost: number };
  /** The server's own log lines (warn and above) when the level lost edits. */
  serverLog?: string;
  /** The server process ended during the level (a crash): its exit code or signal and last error line. */
  serverExited?: string;
  cpu: CpuWindow;
  serverRssMb: number;
  held: boolean;
  note?: string;
}

const levelName = (kind: Target['kind'], editors: number, levelRound = 1) =>
  `${kind === 'floor' ? 'floor, ' : ''}${editors} co-editors${levelRound > 1 ? ` (round ${levelRound})` : ''}`;

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

/** Every editor's presence joined its plan and none dropped during the level (the app's levels only). */
const presenceHeld = ({ editors, connect, connections }: Pick<CoeditLevel, 'editors' | 'connect' | 'connections'>) =>
  connect.joined === editors && connections.presenceLost === 0;

async function runLevel(
  server: Target,
  editors: Editor[],
  postgresPids: () => number[],
  questionOf: Map<string, string>,
  levelRound: number,
): Promise<CoeditLevel> {
  const baseUrl = server.url;
  const serverPid = server.child.pid!;
  const floor = server.kind === 'floor';
  const seeds = new Map<string, Uint8Array>();
  const seedOf = (editor: Editor) => {
    const key = `${editor.formId}:${editor.stepKey}`;
    if (!seeds.has(key)) seeds.set(key, stepDocumentSeed(editor.stepNumber, editor.school));
    return seeds.get(key)!;
  };
  const name = levelName(server.kind, editors.length, levelRound);
  const workers: ChildProcess[] = [];
  // The app's editors also hold their presence, in a process of its own (none on the floor).
  const presence = floor ? null : forkWorker('presence.worker.ts', { execArgv: ['--max-old-space-size=2048'] });
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
        ...(floor ? { seed: seedOf(editor) } : {}),
      });
    });
    const members: PresenceSpec[] = editors.map(({ formId, stepKey, session }) => ({ formId, stepKey, cookie: session.cookie }));
    const [joining, connected] = await Promise.all([
      presence ? ask<{ joined: number; seconds: number }>(presence, { type: 'connect', baseUrl, members, concurrency: CONNECT_CONCURRENCY }, 180_000) : null,
      Promise.all(
        workers.map((worker, w) =>
          ask<{ editors: number; synced: number; authFailures: string[]; seconds: number }>(
            worker,
            { type: 'connect', baseUrl, editors: assignments[w], concurrency: CONNECT_CONCURRENCY, timeoutMs: 120_000 },
            180_000,
          ),
        ),
      ),
    ]);
    const connect = {
      seconds: Math.max(joining?.seconds ?? 0, ...connected.map((c) => c.seconds)),
      synced: connected.reduce((n, c) => n + c.synced, 0),
      joined: joining?.joined ?? 0,
      authFailures: connected.flatMap((c) => c.authFailures),
    };
    log(
      `${name}: ${connect.synced} synced, ${floor ? 'no presence (no Socket.IO on the floor)' : `${connect.joined} joined presence`} in ${connect.seconds} s`,
    );

    const quiet = await waitForQuiet(8_000);
    const sampler = new CpuSampler({
      server: () => processTree(serverPid),
      clients: workers.map((w) => w.pid!),
      ...(presence ? { presence: [presence.pid!] } : {}),
      postgres: postgresPids,
    });
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
        ask<{
          latencies: Float64Array;
          receivedOutsideRun: number;
          arrivedInWindow: number;
          documents: DocumentState[];
          connection: Omit<Connections, 'presenceLost'>;
        }>(worker, {
          type: 'collect',
          settleMs: 3_000,
          timeoutMs: 20_000,
        }),
      ),
    );
    const presenceConnected = presence ? (await ask<{ connected: number }>(presence, { type: 'count' })).connected : 0;
    const connections: Connections = {
      closes: 0,
      editorsThatLostConnection: 0,
      notConnectedNow: 0,
      unsyncedChanges: 0,
      presenceLost: connect.joined - presenceConnected,
    };
    for (const c of collected) for (const key of Object.keys(c.connection) as (keyof typeof c.connection)[]) connections[key] += c.connection[key];
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
    const editsRelayed = round(collected.reduce((n, c) => n + c.arrivedInWindow, 0) / (PER_STEP - 1), 0);
    const level: CoeditLevel = {
      target: server.kind,
      editors: editors.length,
      round: levelRound,
      documents: check.documents,
      connect,
      editsSent,
      editsPerSecond: round(editsSent / ((PHASE.warmupMs + PHASE.measureMs) / 1000), 0),
      editsRelayed,
      // Percent of a core over the window's seconds, in ms, per edit relayed in it.
      serverCpuMsPerEdit: round(((cpu.cpuPercent.server ?? 0) * cpu.seconds * 10) / Math.max(1, editsRelayed), 3),
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
      ...((check.dropped > 0 || check.unconverged > 0) && server.output ? { serverLog: server.output().slice(-4_000) } : {}),
      ...(server.child.exitCode !== null || server.child.signalCode !== null
        ? { serverExited: `exit ${server.child.exitCode ?? server.child.signalCode}: ${lastErrorLine(server.output?.() ?? '')}` }
        : {}),
      cpu,
      serverRssMb: cpu.rssMb.server ?? 0,
      held:
        latency.p99 <= P99_TARGET_MS &&
        check.dropped === 0 &&
        check.unconverged === 0 &&
        connect.synced === editors.length &&
        (floor || presenceHeld({ editors: editors.length, connect, connections })),
      ...(quiet.busyPercent > 20 ? { note: `machine ${quiet.busyPercent}% busy with other work before the level` } : {}),
    };
    log(
      `${name}: ${level.editsPerSecond} edits/s, edit-to-peer median ${latency.median} ms, p95 ${latency.p95} ms, p99 ${latency.p99} ms ` +
        `(${all.length} deliveries), dropped ${check.dropped}, unconverged ${check.unconverged}/${check.documents}, ` +
        `cpu ${JSON.stringify(cpu.cpuPercent)}, server ${level.serverCpuMsPerEdit} ms CPU per edit relayed (${editsRelayed} in the window), server RSS ${level.serverRssMb} MB, client loop delay p99 ${level.clients.eventLoopDelayP99Ms.join('/')} ms, ` +
        `connections ${JSON.stringify(connections)}` +
        (level.serverExited ? `; SERVER PROCESS ENDED: ${level.serverExited}` : ''),
    );
    return level;
  } finally {
    const clients = presence ? [...workers, presence] : workers;
    await Promise.all(clients.map((client) => ask(client, { type: 'close' }, 30_000).catch(() => {})));
    for (const client of clients) await stopChild(client);
  }
}

/** A fresh bare Hocuspocus server process (the floor). */
async function startFloor(): Promise<Target & { stop(): Promise<void> }> {
  const child = forkWorker('coedit-floor-server.ts');
  const { port } = await nextMessage<{ port: number }>(child, 'listening');
  return { kind: 'floor', url: `http://127.0.0.1:${port}`, child, stop: () => stopChild(child) };
}

function levelFigures(level: CoeditLevel): Figure[] {
  const name = levelName(level.target, level.editors, level.round);
  if (!level.latencyMs) return [{ metric: name, value: level.note ?? 'did not run', unit: '' }];
  const at3000 = level.target === 'app' && level.editors === 3_000;
  const disturbance = cpuDisturbance(level.cpu);
  const busy = disturbance ? ` [disturbed: ${disturbance}]` : '';
  const figures: Figure[] = [
    { metric: `${name}${busy}: edit-to-peer median / p95`, value: `${level.latencyMs.median} / ${level.latencyMs.p95}`, unit: 'ms' },
    {
      metric: `${name}: edit-to-peer p99`,
      value: level.latencyMs.p99,
      unit: 'ms',
      target: at3000 ? '<= 100' : undefined,
      pass: at3000 ? level.latencyMs.p99 <= P99_TARGET_MS : undefined,
    },
    {
      metric: `${name}: dropped edits / unconverged docs`,
      value: `${level.droppedEdits} / ${level.unconvergedDocuments}`,
      unit: 'count',
      target: '0 / 0',
      pass: level.droppedEdits === 0 && level.unconvergedDocuments === 0,
    },
    {
      metric: `${name}: server CPU / per edit relayed / RSS`,
      value: `${level.cpu.cpuPercent.server}% / ${level.serverCpuMsPerEdit} / ${level.serverRssMb}`,
      unit: '% core / ms / MB',
    },
    // The fleet shares the machine: its CPU and event-loop lag are part of every latency above.
    {
      metric: `${name}: editing fleet CPU / event-loop delay p99`,
      value: `${level.cpu.cpuPercent.clients}% / ${Math.max(...level.clients.eventLoopDelayP99Ms)}`,
      unit: '% core / ms',
    },
  ];
  if (level.target === 'app')
    figures.push({
      metric: `${name}: presence joined / dropped, its process's CPU`,
      value: `${level.connect.joined} / ${level.connections.presenceLost}, ${level.cpu.cpuPercent.presence}%`,
      unit: 'count / % core',
      pass: presenceHeld(level),
    });
  if (level.serverExited) figures.push({ metric: `${name}: SERVER PROCESS CRASHED`, value: level.serverExited, unit: '', pass: false });
  return figures;
}

const median = (values: number[]) => summarize(values).median;

/** The app as a multiple of the floor at one number of editors: the ratio of the rounds' medians. */
function appOverFloor(apps: CoeditLevel[], floors: CoeditLevel[]) {
  const ratio = (of: (level: CoeditLevel) => number) => {
    const floor = median(floors.map(of));
    return floor > 0 ? round(median(apps.map(of)) / floor, 2) : null;
  };
  return {
    editors: apps[0]!.editors,
    rounds: Math.min(apps.length, floors.length),
    serverCpuPerEdit: ratio((level) => level.serverCpuMsPerEdit),
    latencyMedian: ratio((level) => level.latencyMs.median),
    latencyP99: ratio((level) => level.latencyMs.p99),
    disturbed: [...apps, ...floors].some((level) => cpuDisturbance(level.cpu) !== null),
  };
}

/** Each round's figures side by side, app against floor. */
function roundFigures(apps: CoeditLevel[], floors: CoeditLevel[]): Figure[] {
  const list = (levels: CoeditLevel[], of: (level: CoeditLevel) => number) => levels.map(of).join(', ');
  const name = `${apps[0]!.editors} co-editors, each round, app / floor`;
  const all = [...apps, ...floors];
  return [
    { metric: `${name}: edit-to-peer p99`, value: `${list(apps, (l) => l.latencyMs.p99)} / ${list(floors, (l) => l.latencyMs.p99)}`, unit: 'ms' },
    { metric: `${name}: server CPU per edit`, value: `${list(apps, (l) => l.serverCpuMsPerEdit)} / ${list(floors, (l) => l.serverCpuMsPerEdit)}`, unit: 'ms' },
    {
      metric: `${name}: dropped edits / unconverged docs, all rounds`,
      value: `${all.reduce((n, l) => n + l.droppedEdits, 0)} / ${all.reduce((n, l) => n + l.unconvergedDocuments, 0)}`,
      unit: 'count',
      target: '0 / 0',
      pass: all.every((l) => l.droppedEdits === 0 && l.unconvergedDocuments === 0),
    },
  ];
}

function ratioFigures(ratios: ReturnType<typeof appOverFloor>): Figure[] {
  const rounds = ratios.rounds > 1 ? `, medians of ${ratios.rounds} rounds` : '';
  const name = `${ratios.editors} co-editors, app ÷ floor${rounds}${ratios.disturbed ? ' [disturbed]' : ''}`;
  const within = (...values: (number | null)[]) => values.every((value) => value !== null && value <= FLOOR_RATIO_TARGET);
  return [
    {
      metric: `${name}: server CPU per edit`,
      value: ratios.serverCpuPerEdit,
      unit: 'ratio',
      target: `<= ${FLOOR_RATIO_TARGET}`,
      pass: within(ratios.serverCpuPerEdit),
    },
    {
      metric: `${name}: edit-to-peer median / p99`,
      value: `${ratios.latencyMedian} / ${ratios.latencyP99}`,
      unit: 'ratio',
      target: `<= ${FLOOR_RATIO_TARGET}`,
      pass: within(ratios.latencyMedian, ratios.latencyP99),
    },
  ];
}

await runBenchmark(
  'coedit',
  'Live co-editing: Hocuspocus providers + Socket.IO presence, 3 editors per step, vs. a bare Hocuspocus floor',
  async (result: BenchResult) => {
    const database = await createDatabase('coedit');
    const prefix = redisPrefix('coedit');
    const postgres = postgresPidsOf(database.url, database.name);
    // The first app process migrates the database before the fixtures go in; the first level uses it.
    let firstApp: ServerProcess | undefined;
    // Connects at its first query, after the first app process migrated the database.
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    try {
      const env = serverEnv(database.url, prefix);
      firstApp = await startServerProcess(env);
      const { editors } = await insertEditors(pool, { label: 'Live', editors: Math.max(...LEVELS), perStep: PER_STEP, steps: TYPED_STEPS });
      const questionOf = new Map(TYPED_STEPS.map((s) => [s.step.key, s.questionId]));
      // The floor right after the app's level of the same size: the host's speed drifts within a session.
      const runs = LEVELS.flatMap((n) =>
        FLOOR_LEVELS.includes(n)
          ? Array.from({ length: ROUNDS }, (_, r) => (['app', 'floor'] as const).map((kind) => ({ kind, n, round: r + 1 }))).flat()
          : [{ kind: 'app' as const, n, round: 1 }],
      );
      const levels: CoeditLevel[] = [];
      for (const { kind, n, round: levelRound } of runs) {
        if (secondsLeft() < 30 + n / 30) {
          log(`${levelName(kind, n, levelRound)}: skipped, ${Math.round(secondsLeft())} s left of the budget`);
          if (levelRound === 1)
            levels.push({ target: kind, editors: n, round: levelRound, held: false, note: 'skipped: the time budget ran out' } as CoeditLevel);
          continue;
        }
        // Every level starts from the fixture's documents, as the floor's do: the app stores its
        // documents, and each level's tokens would otherwise make the next level's documents larger
        // (its server CPU per edit rose by a quarter over six levels); their write-ahead rows go too,
        // as a load would apply them.
        if (kind === 'app') await pool.query('delete from collab_documents; delete from collab_updates');
        // A fresh server process per level: its CPU and memory are this level's alone.
        const server = kind === 'floor' ? await startFloor() : { kind, ...(firstApp ?? (await startServerProcess(env))) };
        firstApp = undefined;
        try {
          levels.push(await runLevel(server, editors.slice(0, n), postgres.pids, questionOf, levelRound));
        } catch (error) {
          log(`${levelName(kind, n, levelRound)} could not run: ${(error as Error).message}`);
          levels.push({
            target: kind,
            editors: n,
            round: levelRound,
            held: false,
            note: `did not run: ${(error as Error).message.split('\n')[0]}`,
          } as CoeditLevel);
          break;
        } finally {
          await server.stop();
        }
      }
      const ratios: ReturnType<typeof appOverFloor>[] = [];
      const measured = (target: Target['kind'], n: number) => levels.filter((l) => l.target === target && l.editors === n && l.latencyMs);
      for (const n of LEVELS) {
        // Each level's own figures from its first round; later rounds add their p99 and CPU below.
        for (const level of levels.filter((l) => l.editors === n && l.round === 1)) result.figures.push(...levelFigures(level));
        const [apps, floors] = [measured('app', n), measured('floor', n)];
        if (apps.length === 0 || floors.length === 0) continue;
        const ratio = appOverFloor(apps, floors);
        ratios.push(ratio);
        if (ratio.rounds > 1) result.figures.push(...roundFigures(apps, floors));
        result.figures.push(...ratioFigures(ratio));
      }
      // A level is held when every round of it held.
      const appLevels = levels.filter((l) => l.target === 'app');
      const highestHeld = Math.max(0, ...LEVELS.filter((n) => appLevels.some((l) => l.editors === n) && appLevels.every((l) => l.editors !== n || l.held)));
      result.figures.push({
        metric: 'highest level held (p99 <= 100 ms, 0 dropped, 0 unconverged)',
        value: highestHeld,
        unit: 'editors',
        target: '>= 3000',
        pass: highestHeld >= 3_000,
      });
      result.details = {
        perStep: PER_STEP,
        rounds: ROUNDS,
        workers: WORKERS,
        phase: PHASE,
        intervalMs: INTERVAL_MS,
        connectConcurrencyPerWorker: CONNECT_CONCURRENCY,
        levels: levels.filter((l) => l.target === 'app'),
        floor: levels.filter((l) => l.target === 'floor'),
        appOverFloor: ratios,
      };
    } finally {
      if (firstApp) await firstApp.stop();
      await pool.end();
      await postgres.stop();
      clearRedisPrefix(prefix);
      await database.drop();
    }
  },
);
