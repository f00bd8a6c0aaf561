/**
 * The co-editors' presence (a child process of coedit.bench.ts): for each editor a real
 * socket.io-client on /realtime that joined the plan with its step, as the web client's step page
 * holds it beside the step's document. Kept apart from the editing fleet (coedit.worker.ts), so
 * that the processes that send and time the edits do the same work against the app as against the
 * floor, which has no /realtime.
 */
import { io, type Socket } from 'socket.io-client';
import { round } from './stats.ts';
import { serveRequests } from './workers.ts';

export interface PresenceSpec {
  formId: string;
  stepKey: string;
  cookie: string;
}

let sockets: Socket[] = [];

function join(spec: PresenceSpec, baseUrl: string): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = io(baseUrl, {
      path: '/realtime',
      transports: ['websocket'],
      extraHeaders: { cookie: spec.cookie },
      reconnection: false,
      forceNew: true,
      timeout: 30_000,
    });
    sockets.push(socket);
    socket.once('connect', () => {
      socket
        .timeout(30_000)
        .emitWithAck('plan:join', { formId: spec.formId, stepKey: spec.stepKey })
        .then((reply: { ok?: boolean }) => resolve(reply?.ok === true))
        .catch(() => resolve(false));
    });
    socket.once('connect_error', () => resolve(false));
  });
}

async function connect(message: { baseUrl: string; members: PresenceSpec[]; concurrency: number }) {
  const started = performance.now();
  const queue = [...message.members];
  let joined = 0;
  await Promise.all(
    Array.from({ length: message.concurrency }, async () => {
      for (let spec = queue.shift(); spec; spec = queue.shift()) if (await join(spec, message.baseUrl)) joined++;
    }),
  );
  return { joined, seconds: round((performance.now() - started) / 1000, 1) };
}

/** Sockets still connected: presence that held through the level. */
async function count() {
  return { connected: sockets.filter((socket) => socket.connected).length };
}

async function close() {
  for (const socket of sockets) socket.close();
  sockets = [];
  return { closed: true };
}

serveRequests({ connect, count, close });
