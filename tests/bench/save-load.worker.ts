/**
 * Open-loop load generator for step saves (a child process of save.bench.ts, so it does not
 * share the server's event loop). Each simulated editor autosaves its step every `periodMs`, like
 * the web client: the step's full answers with one typed answer changed, its last-seen revision,
 * `mergeStrategy: merge`. Every request is sent at its planned time whatever happened to the
 * previous one, and its latency is measured from that planned time (no coordinated omission).
 */
import { serveRequests } from './workers.ts';
import { round, summarize } from './stats.ts';
import { RawHttpPool } from './rawHttp.ts';
import { BANK, stepAnswers } from './fixtures.ts';

interface EditorSpec {
  formId: string;
  stepNumber: number;
  school: string;
  cookie: string;
}

interface EditorState {
  path: string;
  /** Cookie, origin, content type and forwarded-for header lines. */
  headers: string;
  cookie: string;
  forwardedFor: string;
  /** The body up to the changed value, and after it up to the revision. */
  head: string;
  middle: string;
  kind: 'text' | 'boolean';
  base: string;
  revision: number;
  seq: number;
}

let editors: EditorState[] = [];
let pool: RawHttpPool;
let target: URL;
let maxSockets = 256;

function prepare(spec: EditorSpec, index: number): EditorState {
  const step = BANK.steps[spec.stepNumber - 1]!;
  const data = stepAnswers(spec.stepNumber, spec.school);
  const typed = step.questions.find((q) => (q.type === 'text' || q.type === 'textarea') && typeof data[q.id] === 'string');
  const questionId = typed?.id ?? step.questions.find((q) => q.type === 'checkbox' || q.type === 'yesno')!.id;
  const base = typed ? String(data[questionId]) : '';
  const MARK = '\u0001CHANGED\u0001';
  data[questionId] = MARK;
  const [head, tail] = JSON.stringify({ stepData: { data } }).split(JSON.stringify(MARK)) as [string, string];
  return {
    path: `/api/forms/${spec.formId}/step/${spec.stepNumber}`,
    headers: '',
    forwardedFor: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
    cookie: spec.cookie,
    head: `${head}`,
    // `tail` closes data and stepData: `}}`; the revision and merge strategy follow.
    middle: tail.slice(0, -1),
    kind: typed ? 'text' : 'boolean',
    base,
    revision: 1,
    seq: 0,
  };
}

function bodyOf(editor: EditorState): string {
  editor.seq += 1;
  const value = editor.kind === 'text' ? JSON.stringify(`${editor.base} Updated (${editor.seq}).`) : String(editor.seq % 2 === 0);
  return `${editor.head}${value}${editor.middle},"revisionCount":${editor.revision},"mergeStrategy":"merge"}`;
}

interface RunRequest {
  /** Wall-clock ms at which the first cycle starts (the same for every generator). */
  startAt: number;
  periodMs: number;
  warmupMs: number;
  measureMs: number;
  /** Use the first `count` editors of this generator. */
  count: number;
  timeoutMs: number;
  /** Stop the level once this many requests are outstanding (the server is far behind: not held). */
  abortOutstanding: number;
  seed: number;
}

function random(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

async function run(request: RunRequest) {
  const count = Math.min(request.count, editors.length);
  const rand = random(request.seed);
  const offsets = Array.from({ length: count }, () => rand() * request.periodMs);
  const order = offsets.map((_, index) => index).sort((a, b) => offsets[a]! - offsets[b]!);
  const start = request.startAt - performance.timeOrigin;
  const end = request.warmupMs + request.measureMs;
  const cycles = Math.ceil(end / request.periodMs);
  const measureFrom = start + request.warmupMs;

  const latencies: number[] = [];
  /** Planned send time of each latency sample, ms from the level's start (for the timeline). */
  const plannedAt: number[] = [];
  const lags: number[] = [];
  const errors: Record<string, number> = {};
  /** Every request of the level, warm-up included (an overloaded level may stop before measuring). */
  const allLatencies: number[] = [];
  const allErrors: Record<string, number> = {};
  /** Successful completions in the measured window (throughput). */
  let okInWindow = 0;
  let sent = 0;
  let measuredSent = 0;
  let ok = 0;
  let conflicts = 0;
  let outstanding = 0;
  let maxOutstanding = 0;
  let abortedAt: number | null = null;
  let finishedScheduling = false;
  let drained: () => void = () => {};
  const windowEnd = () => Math.min(start + end, abortedAt ?? Infinity);

  const count_ = (kind: string) => (errors[kind] = (errors[kind] ?? 0) + 1);
  const countAll = (kind: string) => (allErrors[kind] = (allErrors[kind] ?? 0) + 1);

  function fire(editor: EditorState, planned: number, measured: boolean) {
    const body = bodyOf(editor);
    const now = performance.now();
    if (measured) {
      lags.push(now - planned);
      measuredSent++;
    }
    sent++;
    outstanding++;
    maxOutstanding = Math.max(maxOutstanding, outstanding);
    pool.request('PUT', editor.path, editor.headers, body, request.timeoutMs).then(
      (response) => {
        const finished = performance.now();
        allLatencies.push(finished - planned);
        if (response.status !== 200) countAll(`http ${response.status}`);
        if (response.status === 200) {
          const tail = response.body.subarray(Math.max(0, response.body.length - 400)).toString('utf8');
          const revision = /"revisionCount":(\d+)/.exec(tail)?.[1];
          if (revision) editor.revision = Math.max(editor.revision, Number(revision));
          if (finished >= measureFrom && finished <= windowEnd()) okInWindow++;
          if (measured) {
            ok++;
            latencies.push(finished - planned);
            plannedAt.push(planned - start);
            if (response.body.includes('"conflicts":')) conflicts++;
          }
        } else if (measured) {
          count_(`http ${response.status}`);
          latencies.push(finished - planned);
          plannedAt.push(planned - start);
        }
        settle();
      },
      (error: NodeJS.ErrnoException) => {
        const kind = error.code === 'ETIMEDOUT' ? 'timeout' : error.code === 'ABORTED' ? 'unfinished (level stopped)' : (error.code ?? 'network error');
        countAll(kind);
        allLatencies.push(performance.now() - planned);
        if (measured) {
          count_(error.code === 'ETIMEDOUT' ? 'timeout' : error.code === 'ABORTED' ? 'unfinished (level stopped)' : (error.code ?? 'network error'));
          if (error.code === 'ETIMEDOUT') {
            latencies.push(performance.now() - planned);
            plannedAt.push(planned - start);
          }
        }
        settle();
      },
    );
  }
  function settle() {
    if (--outstanding === 0 && finishedScheduling) drained();
  }

  await new Promise<void>((resolve) => {
    let cycle = 0;
    let position = 0;
    const tick = () => {
      const now = performance.now();
      if (outstanding >= request.abortOutstanding && now > start + 1_000) {
        // Open loop: the server is this far behind, every later request only waits longer.
        abortedAt = now;
        finishedScheduling = true;
        return resolve();
      }
      for (;;) {
        if (cycle >= cycles) {
          finishedScheduling = true;
          return resolve();
        }
        const index = order[position]!;
        const due = cycle * request.periodMs + offsets[index]!;
        if (due >= end) {
          position++;
        } else {
          const planned = start + due;
          if (planned > now) return void setTimeout(tick, Math.min(planned - now, 10));
          fire(editors[index]!, planned, due >= request.warmupMs);
          position++;
        }
        if (position >= count) {
          position = 0;
          cycle++;
        }
        if ((position & 63) === 0 && outstanding >= request.abortOutstanding) return void setImmediate(tick);
      }
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  if (abortedAt !== null) {
    pool.destroy();
    pool = new RawHttpPool(target.origin, maxSockets);
  }
  if (outstanding > 0) await new Promise<void>((resolve) => (drained = resolve));
  const windowMs = Math.max(1, windowEnd() - Math.max(measureFrom, start + 1_000));

  return {
    editors: count,
    sent,
    measuredSent,
    ok,
    okPerSecond: round((okInWindow * 1000) / windowMs, 1),
    conflicts,
    errors,
    maxOutstanding,
    abortedAfterMs: abortedAt === null ? null : round(abortedAt - start, 0),
    latencies: Float64Array.from(latencies),
    allLatencies: Float64Array.from(allLatencies),
    allErrors,
    plannedAt: Float64Array.from(plannedAt),
    sendLag: summarize(lags),
  };
}

interface OpenRequest {
  count: number;
  perSecond: number;
  timeoutMs: number;
}

/**
 * The first `count` editors open their step as the web client does before it autosaves (a GET of
 * the step), `perSecond` at a time and unmeasured: what a level then measures is autosaving alone.
 */
async function open(request: OpenRequest) {
  const count = Math.min(request.count, editors.length);
  const started = performance.now();
  const failures: Record<string, number> = {};
  const fail = (kind: string) => void (failures[kind] = (failures[kind] ?? 0) + 1);
  const opened: Promise<void>[] = [];
  for (let index = 0; index < count; index++) {
    const wait = started + (index * 1000) / request.perSecond - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const editor = editors[index]!;
    opened.push(
      pool.request('GET', editor.path, editor.headers, '', request.timeoutMs).then(
        (response) => {
          if (response.status !== 200) fail(`http ${response.status}`);
        },
        (error: NodeJS.ErrnoException) => fail(error.code ?? 'network error'),
      ),
    );
  }
  await Promise.all(opened);
  return { opened: count, failures, ms: round(performance.now() - started, 0) };
}

function headersOf(editor: EditorState): string {
  return `cookie: ${editor.cookie}\r\norigin: ${target.origin}\r\ncontent-type: application/json\r\nx-forwarded-for: ${editor.forwardedFor}\r\n`;
}

serveRequests({
  async init(message: { baseUrl: string; editors: EditorSpec[]; maxSockets: number }) {
    target = new URL(message.baseUrl);
    maxSockets = message.maxSockets;
    pool = new RawHttpPool(target.origin, maxSockets);
    editors = message.editors.map(prepare);
    for (const editor of editors) editor.headers = headersOf(editor);
    return { editors: editors.length };
  },
  /** Points the same editors at another server (the floor), keeping their state. */
  async retarget(message: { baseUrl: string; maxSockets: number }) {
    target = new URL(message.baseUrl);
    maxSockets = message.maxSockets;
    pool.destroy();
    pool = new RawHttpPool(target.origin, maxSockets);
    for (const editor of editors) editor.headers = headersOf(editor);
    return { ok: true };
  },
  run: (message: RunRequest) => run(message),
  open: (message: OpenRequest) => open(message),
});
