import type { Socket } from 'socket.io';
import type { BaseServices } from '../services.ts';
import { validateSessionTokens } from '../auth/sessions.ts';
import { StoreUnavailableError } from '../kv/index.ts';
import { SlicedHeartbeat } from '../kv/slicedHeartbeat.ts';
import { leavePresence, listPresence, registerPresence, registerPresenceMany } from '../domain/plans/presence.ts';
import { refreshStepLock, releaseStepLockOf } from '../domain/plans/stepLocks.ts';
import type { UserRow } from '../storage/rows.ts';
import type { Broadcast } from './broadcast.ts';
import { socketDataOf, stepRoom, stepRoomPrefix, presentRoom } from './rooms.ts';
import type { SocketServer } from './socketServer.ts';

const PRESENCE_REFRESH_MS = 20_000;
/** A twentieth of the sockets each second. */
const PRESENCE_REFRESH_SLICES = 20;
const PRESENCE_UNAVAILABLE = 'Presence is temporarily unavailable; editing works as usual';

export interface Presence {
  /** Registers and announces the user on a plan (and step); while Redis is down, a warning instead (the heartbeat retries). */
  announce(formId: string, actor: UserRow, stepKey: string | null): Promise<{ warning?: string }>;
  /** Puts the socket on a step of a joined plan (its step room says so to every process); returns the step it left, if any. */
  placeOnStep(socket: Socket, formId: string, stepKey: string | null): Promise<string | null>;
  /** After one of the user's sockets left a plan: their presence follows what their other sockets are on. */
  settle(userId: string, formId: string): Promise<void>;
  /** Releases the user's lock on a step none of their sockets is on any more. */
  releaseLockIfGone(userId: string, formId: string, stepKey: string): Promise<void>;
  /** The periodic presence heartbeat of all of this process's sockets, at once. */
  refresh(): Promise<void>;
  stop(): void;
}

/**
 * Who is on which plan and step, kept in the shared store from the sockets present on them: each
 * change announced to the plan's room, refreshed by a heartbeat while sockets stay, and a step's
 * lock released once its holder has no socket left on the step.
 */
export function startPresence({ io }: SocketServer, services: BaseServices, broadcast: Broadcast): Presence {
  const { config, kv, logger } = services;
  /** Each socket's slice of the heartbeat. */
  const slices = new Map<string, number>();
  const heartbeat = new SlicedHeartbeat(PRESENCE_REFRESH_MS, PRESENCE_REFRESH_SLICES, (slice) => void refresh(slice));
  io.on('connection', (socket) => {
    slices.set(socket.id, heartbeat.nextSlice());
    socket.on('disconnect', () => slices.delete(socket.id));
  });

  async function broadcastPresence(formId: string) {
    broadcast.toPlan(formId, 'presence', { editors: await listPresence(kv, formId) });
  }

  async function announce(formId: string, actor: UserRow, stepKey: string | null): Promise<{ warning?: string }> {
    try {
      await registerPresence(kv, formId, actor, stepKey);
      await broadcastPresence(formId);
      return {};
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      logger.warn({ err: error, formId }, 'presence not shared: Redis unavailable');
      return { warning: PRESENCE_UNAVAILABLE };
    }
  }

  async function placeOnStep(socket: Socket, formId: string, stepKey: string | null): Promise<string | null> {
    const data = socketDataOf(socket);
    const previous = data.plans.get(formId) ?? null;
    data.plans.set(formId, stepKey);
    if (previous === stepKey) return null;
    if (previous) await socket.leave(stepRoom(formId, previous));
    if (stepKey) await socket.join(stepRoom(formId, stepKey));
    return previous;
  }

  /** Their presence goes when none of their sockets (on any process) is still on the plan; otherwise it shows the step one of those is on. */
  async function settle(userId: string, formId: string) {
    const remaining = await userSocketsOn(presentRoom(formId), userId);
    try {
      const editor = (await listPresence(kv, formId)).find((entry) => entry.userId === userId);
      if (!editor) return;
      if (remaining.length === 0) await leavePresence(kv, formId, editor.email);
      else {
        const room = remaining[0]!.rooms.find((name) => name.startsWith(stepRoomPrefix(formId)));
        const stepKey = room ? room.slice(stepRoomPrefix(formId).length) : null;
        if (stepKey === editor.stepKey) return;
        await registerPresence(kv, formId, { id: editor.userId, name: editor.name, email: editor.email }, stepKey);
      }
      await broadcastPresence(formId);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      logger.warn({ err: error, formId }, 'presence not updated: Redis unavailable (it lapses on its own)');
    }
  }

  /** The user's sockets in a room, with their rooms: on any process, or on this one while Redis is down. */
  async function userSocketsOn(room: string, userId: string): Promise<{ rooms: string[] }[]> {
    const sockets = await io
      .in(room)
      .fetchSockets()
      .catch((error: unknown) => {
        logger.warn({ err: error, room }, 'sockets of other processes unknown: Redis unavailable');
        return io.local.in(room).fetchSockets();
      });
    return sockets.filter((other) => socketDataOf(other).userId === userId).map((other) => ({ rooms: [...other.rooms] }));
  }

  /** A step lock belongs to someone on the step. Store failures leave it to lapse on its own. */
  async function releaseLockIfGone(userId: string, formId: string, stepKey: string) {
    if ((await userSocketsOn(stepRoom(formId, stepKey), userId)).length > 0) return;
    const released = await releaseStepLockOf(kv, formId, stepKey, userId).catch((error: unknown) => {
      logger.warn({ err: error, formId, stepKey }, 'step lock not released: store unavailable (it lapses on its own)');
      return null;
    });
    if (released) broadcast.lockChanged(formId, 'released', released);
  }

  /**
   * Open sockets keep their users' presence alive (it lapses 60 s after the last heartbeat) and the
   * step lock of the step they are on, as an open editor does: the sockets' sessions checked in
   * one query, their heartbeats written in one round trip. Without a slice, every socket at once.
   */
  async function refresh(slice?: number) {
    const present = [...io.of('/').sockets.values()]
      .filter((socket) => socketDataOf(socket).plans.size > 0 && SlicedHeartbeat.covers(slice, slices.get(socket.id) ?? 0))
      .map(socketDataOf);
    if (present.length === 0) return;
    try {
      const sessions = await validateSessionTokens(services, [...new Set(present.map((data) => data.token))]);
      const heartbeats = present.flatMap((data) => {
        const actor = sessions.get(data.token)?.actor;
        return actor ? [...data.plans].map(([formId, stepKey]) => ({ formId, user: actor, stepKey })) : [];
      });
      await registerPresenceMany(kv, heartbeats);
      // An editor open on a step keeps the lock its saves took (only the holder's lock is renewed);
      // one not renewed now lapses unless the next turn renews it.
      await Promise.all(
        heartbeats.flatMap(({ formId, user, stepKey }) =>
          stepKey
            ? [
                refreshStepLock(kv, config.stepLockTtlMs, formId, stepKey, user.id).catch((error: unknown) =>
                  logger.warn({ err: error, formId, stepKey }, 'step lock not renewed; retrying at the next turn'),
                ),
              ]
            : [],
        ),
      );
    } catch (error) {
      logger.warn({ err: error }, 'presence refresh failed; retrying at its next turn');
    }
  }
  // Redis back (perhaps empty): presence and the holders' locks again at once, not at the next tick.
  kv.onReconnect(() => void refresh());

  return { announce, placeOnStep, settle, releaseLockIfGone, refresh: () => refresh(), stop: () => heartbeat.stop() };
}
