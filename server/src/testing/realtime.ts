/**
 * Socket.IO clients for tests: real socket.io-client on /realtime over WebSocket, carrying the
 * session cookie in the handshake headers (Node can send them), recording every event received.
 */
import { io, type Socket } from 'socket.io-client';
import { SESSION_COOKIE } from '../auth/sessions.ts';
import { waitFor, type WaitOptions } from './wait.ts';

interface ReceivedEvent {
  name: string;
  payload: any;
}

export interface RealtimeClient {
  readonly label: string;
  readonly socket: Socket;
  readonly events: ReceivedEvent[];
  /** Emits with an acknowledgement and resolves with the server's reply. */
  request(event: string, payload: unknown): Promise<any>;
  /** The first event `name` (received at index `since` or later) matching `match`. */
  waitForEvent(name: string, match?: (payload: any) => boolean, options?: WaitOptions & { since?: number }): Promise<any>;
  /** Events received so far; pass the result as `since` to wait only for later ones. */
  mark(): number;
  close(): void;
}

interface ConnectOptions {
  label?: string;
  origin?: string;
  /** Extra Cookie header content (replaces the session cookie). */
  cookie?: string;
}

function socketFor(baseUrl: string, token: string | null, options: ConnectOptions): Socket {
  const headers: Record<string, string> = {};
  const cookie = options.cookie ?? (token ? `${SESSION_COOKIE}=${token}` : undefined);
  if (cookie) headers.cookie = cookie;
  if (options.origin) headers.origin = options.origin;
  return io(baseUrl, {
    path: '/realtime',
    transports: ['websocket'],
    extraHeaders: headers,
    reconnection: false,
    forceNew: true,
    timeout: 10_000,
  });
}

/** A connected client; rejects when the handshake is refused. */
export async function connectRealtime(baseUrl: string, token: string | null, options: ConnectOptions = {}): Promise<RealtimeClient> {
  const socket = socketFor(baseUrl, token, options);
  const events: ReceivedEvent[] = [];
  socket.onAny((name: string, payload: unknown) => void events.push({ name, payload }));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
  });
  const label = options.label ?? 'socket';
  return {
    label,
    socket,
    events,
    request: (event, payload) => socket.timeout(10_000).emitWithAck(event, payload),
    waitForEvent: (name, match = () => true, waitOptions = {}) =>
      waitFor(
        `${label} to receive "${name}"`,
        () => events.slice(waitOptions.since ?? 0).find((event) => event.name === name && match(event.payload)),
        waitOptions,
      ).then((event) => event.payload),
    mark: () => events.length,
    close: () => void socket.close(),
  };
}

/** Attempts a handshake that must fail: resolves with the connect_error message (rejects if it connects). */
export async function realtimeRefusal(baseUrl: string, token: string | null, options: ConnectOptions = {}): Promise<string> {
  const socket = socketFor(baseUrl, token, options);
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.once('connect', () => reject(new Error('the handshake was accepted')));
      socket.once('connect_error', (error) => resolve(error.message));
    });
  } finally {
    socket.close();
  }
}
