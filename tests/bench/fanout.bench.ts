/**
 * Benchmark 3: fan-out of Socket.IO events to a plan's room across two server processes sharing
 * Redis (the Socket.IO Redis adapter). ~100 staff of one plan hold sockets, half on each process;
 * one at a time, a trigger causes an event on one process and every socket's arrival is timed:
 *   - presence: a socket moves to another step (`presence:step`) → `presence` to the room;
 *   - lock: a save takes a step lock (PUT step → `lock` acquired), an unlock releases it
 *     (POST unlock → `lock` released), as the web client does when an editor opens and leaves a step.
 * Latency is from the trigger's send to the event's arrival, split by whether the receiving
 * socket is on the trigger's process or on the other one (through Redis).
 */
import { io, type Socket } from 'socket.io-client';
import { BANK, insertEditors, type Editor } from './fixtures.ts';
import { RawHttpPool } from './rawHttp.ts';
import { CpuSampler, waitForQuiet } from './cpu.ts';
import { QUICK } from './config.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { createDatabase, pg } from './postgres.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { postgresPidsOf } from './pgActivity.ts';
import { round, roundSummary, summarize } from './stats.ts';
import { serverEnv } from './servers.ts';
import { sleep } from './time.ts';
import { startServerProcess, type ServerProcess } from '../../server/src/testing/serverProcess.ts';

const PER_STEP = 7; // 14 steps × 7 = 98 staff on one plan
const TRIGGERS = QUICK ? 60 : 200; // of each kind
const GAP_MS = 20;
const EVENT_TIMEOUT_MS = 3_000;

interface Receiver {
  editor: Editor;
  server: 0 | 1;
  socket: Socket;
  onEvent: ((name: string, payload: any, at: number) => void) | null;
}

async function connect(editor: Editor, server: ServerProcess, which: 0 | 1): Promise<Receiver> {
  const socket = io(server.url, {
    path: '/realtime',
    transports: ['websocket'],
    extraHeaders: { cookie: editor.session.cookie },
    reconnection: false,
    forceNew: true,
  });
  const receiver: Receiver = { editor, server: which, socket, onEvent: null };
  socket.onAny((name: string, payload: unknown) => receiver.onEvent?.(name, payload, performance.now()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const reply = await socket.timeout(10_000).emitWithAck('plan:join', { formId: editor.formId, stepKey: editor.stepKey });
  if (!reply?.ok) throw new Error(`plan:join refused: ${JSON.stringify(reply)}`);
  return receiver;
}

/** Times one trigger: resolves with each receiver's latency (ms) or null when it never arrived. */
async function timeTrigger(receivers: Receiver[], matches: (name: string, payload: any) => boolean, fire: () => Promise<void>) {
  const arrivals = new Map<Receiver, number>();
  let allArrived: () => void = () => {};
  const done = new Promise<void>((resolve) => (allArrived = resolve));
  for (const receiver of receivers) {
    receiver.onEvent = (name, payload, at) => {
      if (arrivals.has(receiver) || !matches(name, payload)) return;
      arrivals.set(receiver, at);
      if (arrivals.size === receivers.length) allArrived();
    };
  }
  const sent = performance.now();
  await fire();
  await Promise.race([done, sleep(EVENT_TIMEOUT_MS)]);
  for (const receiver of receivers) receiver.onEvent = null;
  return receivers.map((receiver) => (arrivals.has(receiver) ? arrivals.get(receiver)! - sent : null));
}

await runBenchmark(
  'fanout',
  'Fan-out of Socket.IO events (presence, lock) to a plan room across two server processes (Redis adapter)',
  async (result: BenchResult) => {
    const database = await createDatabase('fanout');
    const prefix = redisPrefix('fanout');
    const postgres = postgresPidsOf(database.url, database.name);
    const servers: ServerProcess[] = [];
    const receivers: Receiver[] = [];
    try {
      const env = serverEnv(database.url, prefix);
      // One after the other: two processes migrating a fresh database at once collide (no migration lock).
      servers.push(await startServerProcess(env));
      servers.push(await startServerProcess(env));
      const pool = new pg.Pool({ connectionString: database.url, max: 2 });
      const { editors } = await insertEditors(pool, {
        label: 'Fan',
        editors: BANK.steps.length * PER_STEP,
        perStep: PER_STEP,
        steps: BANK.steps.map((step, index) => ({ step, stepNumber: index + 1 })),
      });
      await pool.end();
      for (const [index, editor] of editors.entries()) receivers.push(await connect(editor, servers[index % 2]!, (index % 2) as 0 | 1));
      log(
        `${receivers.length} sockets in the plan room: ${receivers.filter((r) => r.server === 0).length} on process A, ${receivers.filter((r) => r.server === 1).length} on B`,
      );
      const http = servers.map((server) => new RawHttpPool(server.url, 8));
      // Lock triggers: the first staff member of each step (one per step, so locks never collide).
      const lockers = receivers.filter((_, index) => index % PER_STEP === 0);

      await waitForQuiet(10_000);
      const sampler = new CpuSampler({ serverA: [servers[0]!.child.pid!], serverB: [servers[1]!.child.pid!], postgres: postgres.pids });
      sampler.start();
      const started = performance.now();
      const samples = {
        presence: { same: [] as number[], other: [] as number[], last: [] as number[] },
        lock: { same: [] as number[], other: [] as number[], last: [] as number[] },
      };
      const missing = { presence: 0, lock: 0 };
      let deliveries = 0;
      const record = (kind: 'presence' | 'lock', origin: 0 | 1, latencies: (number | null)[]) => {
        let last = 0;
        latencies.forEach((latency, index) => {
          if (latency === null) return void missing[kind]++;
          deliveries++;
          last = Math.max(last, latency);
          (receivers[index]!.server === origin ? samples[kind].same : samples[kind].other).push(latency);
        });
        samples[kind].last.push(last);
      };

      const stepKeys = BANK.steps.map((step) => step.key);
      for (let i = 0; i < TRIGGERS; i++) {
        // Presence: a staff member moves to another step.
        const mover = receivers[(i * 37) % receivers.length]!;
        const target = stepKeys[(stepKeys.indexOf(mover.editor.stepKey) + 1 + (i % 5)) % stepKeys.length]!;
        const latencies = await timeTrigger(
          receivers,
          (name, payload) =>
            name === 'presence' &&
            payload?.editors?.some((e: { userId: string; stepKey: string | null }) => e.userId === mover.editor.userId && e.stepKey === target),
          async () => void mover.socket.emit('presence:step', { formId: mover.editor.formId, stepKey: target }),
        );
        record('presence', mover.server, latencies);
        await sleep(GAP_MS);

        // Lock: acquired by a save on one process, released by an unlock on the other.
        if (i % 2 === 0) {
          const locker = lockers[(i / 2) % lockers.length]!;
          const origin = ((i / 2) % 2) as 0 | 1;
          const e = locker.editor;
          const headers = `cookie: ${e.session.cookie}\r\norigin: ${servers[origin]!.url}\r\ncontent-type: application/json\r\n`;
          const acquired = await timeTrigger(
            receivers,
            (name, payload) => name === 'lock' && payload?.stepKey === e.stepKey && payload?.state === 'acquired',
            async () => {
              const body = JSON.stringify({ stepData: { data: {} }, mergeStrategy: 'merge' });
              const response = await http[origin]!.request('PUT', `/api/forms/${e.formId}/step/${e.stepNumber}`, headers, body, 10_000);
              if (response.status !== 200) throw new Error(`save: ${response.status} ${response.body.toString().slice(0, 200)}`);
            },
          );
          record('lock', origin, acquired);
          await sleep(GAP_MS);
          const other = (1 - origin) as 0 | 1;
          const otherHeaders = headers.replace(servers[origin]!.url, servers[other]!.url);
          const released = await timeTrigger(
            receivers,
            (name, payload) => name === 'lock' && payload?.stepKey === e.stepKey && payload?.state === 'released',
            async () => {
              const response = await http[other]!.request('POST', `/api/forms/${e.formId}/step/${e.stepNumber}/unlock`, otherHeaders, '{}', 10_000);
              if (response.status !== 200) throw new Error(`unlock: ${response.status} ${response.body.toString().slice(0, 200)}`);
            },
          );
          record('lock', other, released);
          await sleep(GAP_MS);
        }
      }
      const seconds = (performance.now() - started) / 1000;
      const cpu = sampler.stop();
      for (const pool of http) pool.destroy();

      const summary = (values: number[]) => roundSummary(summarize(values), 1);
      const details = {
        sockets: receivers.length,
        triggers: { presence: TRIGGERS, lock: TRIGGERS },
        seconds: round(seconds, 1),
        deliveriesPerSecond: round(deliveries / seconds, 0),
        missing,
        presence: { sameProcess: summary(samples.presence.same), otherProcess: summary(samples.presence.other), lastReceiver: summary(samples.presence.last) },
        lock: { sameProcess: summary(samples.lock.same), otherProcess: summary(samples.lock.other), lastReceiver: summary(samples.lock.last) },
        cpu,
        method: 'one trigger at a time; latency from the trigger request/emit to arrival; lock latency includes the save or unlock request handling',
      };
      log(
        `presence: same process median ${details.presence.sameProcess.median} / p99 ${details.presence.sameProcess.p99} ms, other process median ${details.presence.otherProcess.median} / p99 ${details.presence.otherProcess.p99} ms; ` +
          `lock: same ${details.lock.sameProcess.median} / ${details.lock.sameProcess.p99} ms, other ${details.lock.otherProcess.median} / ${details.lock.otherProcess.p99} ms; missing ${JSON.stringify(missing)}; ${details.deliveriesPerSecond} deliveries/s`,
      );
      for (const kind of ['presence', 'lock'] as const) {
        result.figures.push(
          { metric: `${kind}: same process median / p99`, value: `${details[kind].sameProcess.median} / ${details[kind].sameProcess.p99}`, unit: 'ms' },
          {
            metric: `${kind}: other process (via Redis) median / p99`,
            value: `${details[kind].otherProcess.median} / ${details[kind].otherProcess.p99}`,
            unit: 'ms',
          },
          {
            metric: `${kind}: whole room (last of ${receivers.length}) median / p99`,
            value: `${details[kind].lastReceiver.median} / ${details[kind].lastReceiver.p99}`,
            unit: 'ms',
          },
        );
      }
      result.figures.push(
        { metric: 'deliveries (one trigger at a time)', value: details.deliveriesPerSecond, unit: 'events/s' },
        { metric: 'missing deliveries', value: missing.presence + missing.lock, unit: 'count', target: '0', pass: missing.presence + missing.lock === 0 },
      );
      result.details = details;
    } finally {
      for (const receiver of receivers) receiver.socket.close();
      await Promise.all(servers.map((server) => server.stop()));
      await postgres.stop();
      clearRedisPrefix(prefix);
      await database.drop();
    }
  },
);
