/**
 * A fleet of live co-editors (a child process of coedit.bench.ts): each editor is a real
 * @hocuspocus/provider on its plan step's document (its own WebSocket, authenticated by its
 * session token), as the web client's step page holds it. Their presence on /realtime is held by
 * presence.worker.ts, so this fleet does the same work against the app and the floor.
 *
 * Every second (open loop, at a fixed phase) an editor appends a small token to the step's typed
 * answer: `[run:author:seq:sentAtMs]`. Peers, wherever they run, time the token's arrival from
 * the wall-clock timestamp inside it (processes of one machine share the clock).
 */
import { createHash } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { ANSWERS_MAP, collabDocumentName } from '@csp/shared';
import { round, summarize } from './stats.ts';
import { serveRequests } from './workers.ts';
import { sleep, wallMs } from './time.ts';

export interface CoEditorSpec {
  /** Global editor index (author id in tokens). */
  index: number;
  formId: string;
  stepKey: string;
  questionId: string;
  token: string;
  /**
   * The step's seeded state, applied before connecting, for a server that loads nothing (the
   * floor). The three peers of a document get the same bytes, so the server keeps one copy.
   */
  seed?: Uint8Array;
}

interface CoEditor {
  spec: CoEditorSpec;
  doc: Y.Doc;
  socket: HocuspocusProviderWebsocket;
  provider: HocuspocusProvider;
  synced: boolean;
  authFailure: string | null;
  /** Connection losses (socket closes) seen after the first sync. */
  closes: number;
  sent: number;
  text(): Y.Text | null;
}

let editors: CoEditor[] = [];
let run = '';
/** Arrival latencies (ms) of peers' tokens sent inside the measured window. */
let latencies: number[] = [];
let measureFrom = Infinity;
let measureTo = Infinity;
let receivedOutsideRun = 0;
/** Peers' tokens that arrived inside the measured window, whenever sent: what the server relayed in it. */
let arrivedInWindow = 0;
const loopDelay = monitorEventLoopDelay({ resolution: 10 });

const TOKEN = /\[([a-z0-9]+):(\d+):(\d+):(\d+\.\d+)\]/g;

function open(spec: CoEditorSpec, baseUrl: string): CoEditor {
  const doc = new Y.Doc();
  if (spec.seed) Y.applyUpdate(doc, spec.seed);
  // `ws`, not Node's built-in WebSocket (undici), whose message handling showed in the fleet's profile.
  const socket = new HocuspocusProviderWebsocket({ url: `${baseUrl.replace(/^http/, 'ws')}/collab`, maxAttempts: 0, WebSocketPolyfill: WebSocket });
  const editor: CoEditor = {
    spec,
    doc,
    socket,
    provider: null as unknown as HocuspocusProvider,
    synced: false,
    authFailure: null,
    closes: 0,
    sent: 0,
    text: () => {
      const value = doc.getMap(ANSWERS_MAP).get(spec.questionId);
      return value instanceof Y.Text ? value : null;
    },
  };
  editor.provider = new HocuspocusProvider({
    websocketProvider: socket,
    name: collabDocumentName(spec.formId, spec.stepKey),
    document: doc,
    token: spec.token,
    onSynced: () => {
      editor.synced = true;
      observe(editor);
    },
    onAuthenticationFailed: ({ reason }) => void (editor.authFailure = reason),
    onClose: () => {
      if (editor.synced) editor.closes++;
    },
  });
  editor.provider.attach();
  return editor;
}

let observed = new WeakSet<Y.Doc>();
/**
 * Times peers' tokens as their updates are applied. The tokens are read from the update's own
 * bytes (Y.js writes an inserted string whole, as UTF-8): a text event's delta walks the whole
 * text, which made the fleet's cost grow with the document and its tail with it.
 */
function observe(editor: CoEditor) {
  if (observed.has(editor.doc)) return;
  observed.add(editor.doc);
  editor.doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== editor.provider) return;
    const now = wallMs();
    for (const match of Buffer.from(update.buffer, update.byteOffset, update.byteLength).toString('latin1').matchAll(TOKEN)) {
      if (match[1] !== run) {
        receivedOutsideRun++;
        continue;
      }
      const sentAt = Number(match[4]);
      if (now >= measureFrom && now < measureTo) arrivedInWindow++;
      if (sentAt >= measureFrom && sentAt < measureTo) latencies.push(now - sentAt);
    }
  });
}

async function connect(message: { baseUrl: string; editors: CoEditorSpec[]; concurrency: number; timeoutMs: number }) {
  const started = performance.now();
  editors = [];
  observed = new WeakSet();
  const queue = [...message.editors];
  const deadline = Date.now() + message.timeoutMs;
  // A bounded number of editors opening at once, as a school's staff arrive over a morning.
  await Promise.all(
    Array.from({ length: message.concurrency }, async () => {
      for (;;) {
        const spec = queue.shift();
        if (!spec) return;
        const editor = open(spec, message.baseUrl);
        editors.push(editor);
        while (!editor.synced && !editor.authFailure && Date.now() < deadline) await sleep(20);
      }
    }),
  );
  return {
    editors: editors.length,
    synced: editors.filter((e) => e.synced).length,
    authFailures: editors
      .filter((e) => e.authFailure)
      .map((e) => e.authFailure)
      .slice(0, 5),
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

async function edit(message: { run: string; startAt: number; warmupMs: number; measureMs: number; intervalMs: number }) {
  run = message.run;
  latencies = [];
  receivedOutsideRun = 0;
  arrivedInWindow = 0;
  for (const editor of editors) editor.sent = 0;
  measureFrom = message.startAt + message.warmupMs;
  measureTo = measureFrom + message.measureMs;
  const end = message.startAt + message.warmupMs + message.measureMs;
  const live = editors.filter((e) => e.synced && e.text());
  const phases = live.map((_, i) => ((i * 7919) % live.length) / live.length);
  let lateSends = 0;
  const lag: number[] = [];
  loopDelay.reset();
  loopDelay.enable();
  await new Promise<void>((resolve) => {
    // One timer walks the editors in phase order: each edits once per interval.
    const order = live.map((_, i) => i).sort((a, b) => phases[a]! - phases[b]!);
    let cycle = 0;
    let position = 0;
    const tick = () => {
      const now = wallMs();
      for (;;) {
        const index = order[position]!;
        const planned = message.startAt + cycle * message.intervalMs + phases[index]! * message.intervalMs;
        if (planned >= end) return resolve();
        if (planned > now) return void setTimeout(tick, Math.min(planned - now, 10));
        const editor = live[index]!;
        const sentAt = wallMs();
        if (sentAt - planned > 50) lateSends++;
        if (planned >= measureFrom) lag.push(sentAt - planned);
        editor.sent++;
        const text = editor.text()!;
        text.insert(text.length, `[${run}:${editor.spec.index}:${editor.sent}:${sentAt.toFixed(3)}]`);
        position++;
        if (position >= order.length) {
          position = 0;
          cycle++;
        }
      }
    };
    setTimeout(tick, Math.max(0, message.startAt - wallMs()));
  });
  loopDelay.disable();
  return {
    editing: live.length,
    sent: live.reduce((n, e) => n + e.sent, 0),
    lateSends,
    sendLag: summarize(lag),
    eventLoopDelayP99Ms: round(loopDelay.percentile(99) / 1e6, 1),
  };
}

/** Waits until no local change is unacknowledged (bounded), then the latencies and each document's state. */
async function collect(message: { settleMs: number; timeoutMs: number }) {
  const deadline = Date.now() + message.timeoutMs;
  while (Date.now() < deadline && editors.some((e) => e.synced && e.provider.unsyncedChanges > 0)) await sleep(100);
  await sleep(message.settleMs);
  const documents = editors.map((editor) => {
    const content = editor.text()?.toString() ?? '';
    const seen: Record<number, number> = {};
    for (const match of content.matchAll(TOKEN)) {
      if (match[1] !== run) continue;
      const author = Number(match[2]);
      seen[author] = (seen[author] ?? 0) + 1;
    }
    return {
      index: editor.spec.index,
      document: `${editor.spec.formId}:${editor.spec.stepKey}`,
      sent: editor.sent,
      hash: createHash('sha1').update(content).digest('hex'),
      seen,
      unsynced: editor.provider.unsyncedChanges,
      connected: editor.synced,
    };
  });
  const connection = {
    closes: editors.reduce((n, e) => n + e.closes, 0),
    editorsThatLostConnection: editors.filter((e) => e.closes > 0).length,
    notConnectedNow: editors.filter((e) => String(e.socket.status) !== 'connected').length,
    unsyncedChanges: editors.reduce((n, e) => n + e.provider.unsyncedChanges, 0),
  };
  return { latencies: Float64Array.from(latencies), receivedOutsideRun, arrivedInWindow, documents, connection };
}

async function close() {
  for (const editor of editors) {
    editor.provider.destroy();
    editor.socket.destroy();
  }
  editors = [];
  return { closed: true };
}

serveRequests({ connect, edit, collect, close });
