import { io, type Socket } from 'socket.io-client';
import type { z } from 'zod';
import { joinAckSchema } from '@csp/shared/api/realtime';

export type ConnectionState = 'connecting' | 'connected' | 'offline';

/**
 * The tab's one Socket.IO connection to the realtime gateway (/realtime): presence, locks,
 * comments, statuses, review flags, saves and notifications arrive here, never by polling.
 * WebSocket only, so any server process can take it without sticky sessions.
 */
class RealtimeConnection {
  state = $state<ConnectionState>('connecting');
  private socket: Socket | null = null;
  /** Plans this tab has joined, with the step it is on: joined again after a reconnect. */
  private readonly joined = new Map<string, string | null>();
  /** Plans whose events this tab follows without being present (a dashboard). */
  private readonly watched = new Set<string>();
  /** Called each time the gateway accepts this tab on a plan: first, and again after every reconnect. */
  private readonly joinedListeners = new Map<string, Set<() => void>>();

  private connect(): Socket {
    if (this.socket) return this.socket;
    const socket = io({ path: '/realtime', transports: ['websocket'], withCredentials: true });
    socket.on('connect', () => {
      this.state = 'connected';
      for (const [formId, stepKey] of this.joined) void this.emitJoin(formId, stepKey);
      for (const formId of this.watched) if (!this.joined.has(formId)) void this.emitJoin(formId, null, true);
    });
    socket.on('disconnect', () => (this.state = navigator.onLine ? 'connecting' : 'offline'));
    socket.on('connect_error', () => (this.state = navigator.onLine ? 'connecting' : 'offline'));
    this.socket = socket;
    return socket;
  }

  /** Listens to a server event whose payload is checked with its shared schema; returns the unsubscribe. */
  on<S extends z.ZodType>(event: string, schema: S, handler: (payload: z.infer<S>) => void): () => void {
    const socket = this.connect();
    const listener = (raw: unknown) => {
      const parsed = schema.safeParse(raw);
      if (parsed.success) handler(parsed.data);
    };
    socket.on(event, listener);
    return () => socket.off(event, listener);
  }

  /** Joins a plan's room (presence on `stepKey`); resolves with the gateway's answer. */
  async join(formId: string, stepKey: string | null): Promise<{ ok: boolean; error?: string }> {
    this.joined.set(formId, stepKey);
    this.connect();
    return this.emitJoin(formId, stepKey);
  }

  /**
   * Runs `listener` each time the gateway accepts this tab on the plan (after a reconnect too):
   * what was missed while disconnected is read again then. Returns the unsubscribe.
   */
  onJoined(formId: string, listener: () => void): () => void {
    // Listeners only, never rendered: a plain Set on purpose.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    const listeners = this.joinedListeners.get(formId) ?? new Set();
    this.joinedListeners.set(formId, listeners.add(listener));
    return () => void listeners.delete(listener);
  }

  /** Moves this tab's presence to another step of a joined plan. */
  moveTo(formId: string, stepKey: string | null): void {
    if (!this.joined.has(formId)) return;
    this.joined.set(formId, stepKey);
    if (this.socket?.connected) this.socket.emit('presence:step', { formId, stepKey });
  }

  /** Leaves a plan (`plan:leave` ends both presence and watching; a watch that remains is renewed). */
  leave(formId: string): void {
    if (!this.joined.delete(formId)) return;
    if (!this.socket?.connected) return;
    this.socket.emit('plan:leave', { formId });
    if (this.watched.has(formId)) void this.emitJoin(formId, null, true);
  }

  /** Follows a plan's events (presence, statuses...) without appearing on it. */
  async watch(formId: string): Promise<{ ok: boolean; error?: string }> {
    this.watched.add(formId);
    this.connect();
    return this.joined.has(formId) ? { ok: true } : this.emitJoin(formId, null, true);
  }

  unwatch(formId: string): void {
    if (!this.watched.delete(formId) || this.joined.has(formId)) return;
    if (this.socket?.connected) this.socket.emit('plan:leave', { formId });
  }

  private async emitJoin(formId: string, stepKey: string | null, watch = false): Promise<{ ok: boolean; error?: string }> {
    const socket = this.socket;
    if (!socket?.connected) return { ok: false, error: 'Not connected' };
    try {
      const payload = watch ? { formId, watch: true } : { formId, stepKey };
      const ack = joinAckSchema.safeParse(await socket.timeout(10_000).emitWithAck('plan:join', payload));
      if (ack.success && ack.data.ok && !watch) for (const listener of this.joinedListeners.get(formId) ?? []) listener();
      return ack.success ? ack.data : { ok: false, error: 'Unexpected answer' };
    } catch {
      return { ok: false, error: 'No answer from the server' };
    }
  }
}

export const realtime = new RealtimeConnection();
