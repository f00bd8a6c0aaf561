import type http from 'node:http';
import { Server as SocketServer, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import { planJoinSchema, planLeaveSchema, presenceStepSchema } from '@csp/shared/api/realtime';
import type { BaseServices } from '../services.ts';
import { SESSION_COOKIE, validateSessionToken, validateSessionTokens } from '../auth/sessions.ts';
import { StoreUnavailableError } from '../kv/index.ts';
import { createPubSubClient } from '../kv/redis.ts';
import { SlicedHeartbeat } from '../kv/slicedHeartbeat.ts';
import { findPlan } from '../domain/plans/loadPlan.ts';
import { leavePresence, listPresence, registerPresence, registerPresenceMany } from '../domain/plans/presence.ts';
import { refreshStepLock, releaseStepLockOf } from '../domain/plans/stepLocks.ts';
import { stepKeysOf } from '../domain/questionBank/bankCatalog.ts';
import { isAllowedOrigin, sessionTokenFromCookie } from './origin.ts';
import type { AccessScope, RealtimeEvents } from './events.ts';
import { LockExpiryWatcher } from './lockExpiryWatcher.ts';
import { PlanFollowers } from './planFollowers.ts';
import { presentComment, presentNotification } from '../presenters/comment.ts';
import type { RealtimeHealth } from '@csp/shared/api/health';
import type { UserRow } from '../storage/rows.ts';

export const REALTIME_PATH = '/realtime';
const PRESENCE_REFRESH_MS = 20_000;
/** A twentieth of the sockets each second. */
const PRESENCE_REFRESH_SLICES = 20;
const PRESENCE_UNAVAILABLE = 'Presence is temporarily unavailable; editing works as usual';

interface SocketData {
  token: string;
  sessionId: string;
  userId: string;
  /** Plans this socket joined, with the step it is on. */
  plans: Map<string, string | null>;
  /** Plans whose events this socket follows without being present (a dashboard). */
  watching: Set<string>;
  /** The presence heartbeat's slice that refreshes this socket. */
  heartbeatSlice: number;
}

type Ack = (reply: Record<string, unknown>) => void;
const planRoom = (formId: string) => `plan:${formId}`;
/** The sockets present on a plan (a subset of its room, which also holds watchers). */
const presentRoom = (formId: string) => `present:${formId}`;
/** The sockets present on one step of a plan: who is really on it, on any process. */
const stepRoomPrefix = (formId: string) => `present:${formId}:`;
const stepRoom = (formId: string, stepKey: string) => `${stepRoomPrefix(formId)}${stepKey}`;
const userRoom = (userId: string) => `user:${userId}`;

export interface RealtimeGateway extends RealtimeEvents {
  io: SocketServer;
  /** The periodic presence heartbeat of all of this process's sockets, at once. */
  refreshPresence(): Promise<void>;
  /** Runs on every server process when someone's access may have changed. */
  onAccessChanged(listener: (scope: AccessScope) => Promise<void>): void;
  /** This process's sockets, and whether events reach other processes (Redis adapter connected). */
  status(): RealtimeHealth;
  close(): Promise<void>;
}

/**
 * Socket.IO on /realtime: authenticated from the session cookie at the handshake (same-origin
 * only), rooms per plan joined only when the policy allows, presence kept in the shared store.
 */
export function createRealtimeGateway(httpServer: http.Server, services: BaseServices): RealtimeGateway {
  const { config, kv, logger } = services;
  const io = new SocketServer(httpServer, {
    path: REALTIME_PATH,
    // With workers on one port, no long-polling: its requests would each need the worker holding
    // the session (sticky sessions); a WebSocket stays on the worker that accepted it. One process
    // takes both, as Socket.IO clients expect by default.
    transports: config.workers > 1 ? ['websocket'] : ['polling', 'websocket'],
    // A silent connection (dropped network) is gone after one ping interval and one ping timeout.
    pingInterval: config.realtimeTimeoutMs / 2,
    pingTimeout: config.realtimeTimeoutMs / 2,
    serveClient: false,
    destroyUpgrade: false,
    allowRequest: (request, callback) => callback(null, isAllowedOrigin(request, config.appUrl)),
  });
  const onRedisError = (error: unknown, command: string) =>
    logger.warn({ err: error, command }, 'realtime events not shared with other processes: Redis unavailable');
  const redisClients = config.redisUrl ? [createPubSubClient(config.redisUrl, onRedisError), createPubSubClient(config.redisUrl, onRedisError)] : [];
  if (redisClients.length) {
    io.adapter(createAdapter(redisClients[0]!, redisClients[1]!, { key: `${config.redisPrefix}socket.io` }));
  }

  const accessListeners: ((scope: AccessScope) => Promise<void>)[] = [];
  const runAccessListeners = (scope: AccessScope) => {
    // Before anything re-checks a session, this process forgets the concerned cached ones.
    services.sessionCache.forget(scope);
    for (const listener of accessListeners) listener(scope).catch((error: unknown) => logger.error({ err: error }, 'access re-check failed'));
  };
  io.on('revalidate', runAccessListeners);

  const followers = new PlanFollowers(io, logger, redisClients.length > 0);
  // The subscriber's connection carries other processes' room changes: without it they go unheard.
  // So does every other process's revocation of a session: while it is down, no session is cached.
  const subscriber = redisClients[1];
  if (subscriber && subscriber.status !== 'ready') services.sessionCache.suspend();
  subscriber?.on('ready', () => {
    // ioredis renews the subscriptions right after this event; a PING sent next is answered after them.
    process.nextTick(() =>
      subscriber.ping().then(
        () => services.sessionCache.resume(),
        () => {},
      ),
    );
    followers.sync();
  });
  subscriber?.on('close', () => {
    services.sessionCache.suspend();
    followers.unsure();
  });
  const toPlan: RealtimeEvents['toPlan'] = (formId, event, payload) => {
    // Most autosaves concern a plan nobody has open: nothing to serialize or publish.
    if (followers.isFollowed(formId)) io.to(planRoom(formId)).emit(event, { formId, ...payload });
  };
  const toUser: RealtimeEvents['toUser'] = (userId, event, payload) => {
    io.to(userRoom(userId)).emit(event, payload);
  };
  const lockWatcher = new LockExpiryWatcher(kv, logger, (formId, lock) =>
    toPlan(formId, 'lock', { stepKey: lock.stepKey, state: 'expired', lockedBy: lock.lockedBy }),
  );

  const events: RealtimeEvents = {
    toPlan,
    toUser,
    lockChanged: (formId, state, lock) => {
      if (state === 'acquired') lockWatcher.watch(formId, lock);
      else lockWatcher.unwatch(formId, lock.stepKey);
      toPlan(formId, 'lock', { stepKey: lock.stepKey, state, lockedBy: lock.lockedBy, ...(state === 'acquired' ? { expiresAt: lock.expiresAt } : {}) });
    },
    commentChanged: (thread) => toPlan(thread.comment.formId, 'comment', { comment: presentComment(thread) }),
    notified: (notification) => toUser(notification.userId, 'notification', { notification: presentNotification(notification) }),
    accessChanged: (scope) => {
      runAccessListeners(scope);
      // Other server processes exist only behind the Redis adapter.
      if (redisClients.length) io.serverSideEmit('revalidate', scope);
    },
  };

  const heartbeat = new SlicedHeartbeat(PRESENCE_REFRESH_MS, PRESENCE_REFRESH_SLICES, (slice) => void refreshPresence(slice));
  io.use(async (socket, next) => {
    try {
      const token = sessionTokenFromCookie(socket.request.headers.cookie, SESSION_COOKIE) ?? (socket.handshake.auth?.token as string | undefined) ?? null;
      const auth = token ? await validateSessionToken(services, token) : null;
      if (!auth) return next(new Error('Unauthorized'));
      const data: SocketData = {
        token: token!,
        sessionId: auth.sessionId,
        userId: auth.actor.id,
        plans: new Map(),
        watching: new Set(),
        heartbeatSlice: heartbeat.nextSlice(),
      };
      socket.data = data;
      await socket.join(userRoom(auth.actor.id));
      next();
    } catch (error) {
      next(error as Error);
    }
  });

  async function broadcastPresence(formId: string) {
    events.toPlan(formId, 'presence', { editors: await listPresence(kv, formId) });
  }

  /** Registers and announces the user's presence; while Redis is down, a warning instead (the refresher retries). */
  async function announcePresence(formId: string, actor: UserRow, stepKey: string | null): Promise<{ warning?: string }> {
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

  /** The socket's user, freshly checked: the session may have ended since the handshake. */
  async function currentActor(socket: Socket) {
    const auth = await validateSessionToken(services, (socket.data as SocketData).token);
    if (!auth) {
      socket.disconnect(true);
      return null;
    }
    return auth.actor;
  }

  /** Socket.IO does not await handlers, and a rejection would end the process: each failure is answered and logged. */
  function handle(socket: Socket, event: string, handler: (raw: unknown, reply: Ack) => Promise<void>) {
    socket.on(event, (raw: unknown, ack?: Ack) => {
      const reply = typeof ack === 'function' ? ack : () => {};
      handler(raw, reply).catch((error: unknown) => {
        logger.error({ err: error, event }, 'realtime event failed');
        reply({ ok: false, error: 'Internal error' });
      });
    });
  }

  io.on('connection', (socket) => {
    const data = socket.data as SocketData;

    handle(socket, 'plan:join', async (raw, reply) => {
      const parsed = planJoinSchema.safeParse(raw);
      if (!parsed.success) return reply({ ok: false, error: 'Invalid request' });
      const actor = await currentActor(socket);
      if (!actor) return reply({ ok: false, error: 'Unauthorized' });
      const context = await findPlan(services, actor, parsed.data.formId);
      if (!context || !(context.access.read || context.access.presence)) return reply({ ok: false, error: 'Access denied' });
      const stepKey = parsed.data.stepKey ?? null;
      if (stepKey && !stepKeysOf(await services.banks.resolve(context.plan.questionBankVersion)).includes(stepKey)) {
        return reply({ ok: false, error: 'Unknown step' });
      }
      if (parsed.data.watch) {
        await socket.join(planRoom(parsed.data.formId));
        data.watching.add(parsed.data.formId);
        return reply({ ok: true });
      }
      await socket.join([planRoom(parsed.data.formId), presentRoom(parsed.data.formId)]);
      const left = await placeOnStep(socket, parsed.data.formId, stepKey);
      const presence = context.access.presence ? await announcePresence(parsed.data.formId, actor, stepKey) : {};
      reply({ ok: true, ...presence });
      if (left) await releaseLockIfGone(data.userId, parsed.data.formId, left);
    });

    handle(socket, 'presence:step', async (raw, reply) => {
      const parsed = presenceStepSchema.safeParse(raw);
      if (!parsed.success || !data.plans.has(parsed.data.formId)) return reply({ ok: false, error: 'Join the plan first' });
      const actor = await currentActor(socket);
      if (!actor) return reply({ ok: false, error: 'Unauthorized' });
      const left = await placeOnStep(socket, parsed.data.formId, parsed.data.stepKey);
      reply({ ok: true, ...(await announcePresence(parsed.data.formId, actor, parsed.data.stepKey)) });
      if (left) await releaseLockIfGone(data.userId, parsed.data.formId, left);
    });

    handle(socket, 'plan:leave', async (raw, reply) => {
      const parsed = planLeaveSchema.safeParse(raw);
      if (!parsed.success) return reply({ ok: false, error: 'Invalid request' });
      await leavePlan(socket, parsed.data.formId);
      reply({ ok: true });
    });

    socket.on('disconnect', () => {
      for (const formId of data.plans.keys()) {
        leavePlan(socket, formId).catch((error: unknown) => logger.error({ err: error, formId }, 'leaving a plan on disconnect failed'));
      }
    });
  });

  /**
   * Puts the socket on a step of a joined plan (its step room says so to every process) and
   * returns the step it left, if any.
   */
  async function placeOnStep(socket: Socket, formId: string, stepKey: string | null): Promise<string | null> {
    const data = socket.data as SocketData;
    const previous = data.plans.get(formId) ?? null;
    data.plans.set(formId, stepKey);
    if (previous === stepKey) return null;
    if (previous) await socket.leave(stepRoom(formId, previous));
    if (stepKey) await socket.join(stepRoom(formId, stepKey));
    return previous;
  }

  /** The socket leaves the plan; its step's lock and its user's presence follow (`settlePresence`, `releaseLockIfGone`). */
  async function leavePlan(socket: Socket, formId: string) {
    const data = socket.data as SocketData;
    const watched = data.watching.delete(formId);
    const stepKey = data.plans.get(formId) ?? null;
    const present = data.plans.delete(formId);
    if (!watched && !present) return;
    await socket.leave(planRoom(formId));
    if (!present) return;
    await socket.leave(presentRoom(formId));
    if (stepKey) await socket.leave(stepRoom(formId, stepKey));
    await settlePresence(data.userId, formId);
    if (stepKey) await releaseLockIfGone(data.userId, formId, stepKey);
  }

  /**
   * After one of the user's sockets left a plan: their presence goes when none of their sockets
   * (on any process) is still on it; otherwise it shows the step one of those is on.
   */
  async function settlePresence(userId: string, formId: string) {
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
    return sockets.filter((other) => (other.data as SocketData).userId === userId).map((other) => ({ rooms: [...other.rooms] }));
  }

  /**
   * A step lock belongs to someone on the step: once none of the holder's sockets (on any
   * process) is on it any more, the lock is released and the plan hears it. Store failures
   * leave it to lapse on its own.
   */
  async function releaseLockIfGone(userId: string, formId: string, stepKey: string) {
    if ((await userSocketsOn(stepRoom(formId, stepKey), userId)).length > 0) return;
    const released = await releaseStepLockOf(kv, formId, stepKey, userId).catch((error: unknown) => {
      logger.warn({ err: error, formId, stepKey }, 'step lock not released: store unavailable (it lapses on its own)');
      return null;
    });
    if (released) events.lockChanged(formId, 'released', released);
  }

  /**
   * Open sockets keep their users' presence alive (it lapses 60 s after the last heartbeat) and the
   * step lock of the step they are on, as an open editor does: the sockets' sessions checked in
   * one query, their heartbeats written in one round trip. Without a slice, every socket at once.
   */
  async function refreshPresence(slice?: number) {
    const present = [...io.of('/').sockets.values()]
      .map((socket) => socket.data as SocketData)
      .filter((data) => data.plans.size > 0 && SlicedHeartbeat.covers(slice, data.heartbeatSlice));
    if (present.length === 0) return;
    try {
      const sessions = await validateSessionTokens(services, [...new Set(present.map((data) => data.token))]);
      const heartbeats = present.flatMap((data) => {
        const actor = sessions.get(data.token)?.actor;
        return actor ? [...data.plans].map(([formId, stepKey]) => ({ formId, user: actor, stepKey })) : [];
      });
      await registerPresenceMany(kv, heartbeats);
      // An editor open on a step keeps the lock its saves took (only the holder's lock is renewed).
      await Promise.all(
        heartbeats.flatMap(({ formId, user, stepKey }) =>
          stepKey ? [refreshStepLock(kv, config.stepLockTtlMs, formId, stepKey, user.id).catch(() => false)] : [],
        ),
      );
    } catch (error) {
      logger.warn({ err: error }, 'presence refresh failed; retrying at its next turn');
    }
  }
  // Redis back (perhaps empty): presence and the holders' locks again at once, not at the next tick.
  kv.onReconnect(() => void refreshPresence());

  /** Sockets whose access ended leave their plan rooms (or disconnect when the session ended). */
  accessListeners.push(async (scope) => {
    for (const socket of io.of('/').sockets.values()) {
      const data = socket.data as SocketData;
      const concerned =
        scope.all ||
        scope.userIds?.includes(data.userId) ||
        scope.sessionIds?.includes(data.sessionId) ||
        (scope.formId !== undefined && (data.plans.has(scope.formId) || data.watching.has(scope.formId)));
      if (!concerned) continue;
      // Unknown is not revoked: a socket whose access cannot be read now (the database unreachable) keeps its rooms.
      await recheckSocket(socket, data).catch((error: unknown) =>
        logger.warn({ err: error, userId: data.userId }, 'access not re-checked; the socket keeps its rooms'),
      );
    }
  });

  async function recheckSocket(socket: Socket, data: SocketData): Promise<void> {
    const auth = await validateSessionToken(services, data.token);
    if (!auth) {
      socket.disconnect(true);
      return;
    }
    for (const formId of new Set([...data.plans.keys(), ...data.watching])) {
      const context = await findPlan(services, auth.actor, formId);
      if (!context || !(context.access.read || context.access.presence)) await leavePlan(socket, formId);
    }
  }

  return {
    ...events,
    io,
    refreshPresence,
    onAccessChanged: (listener) => void accessListeners.push(listener),
    status: () => {
      const sockets = [...io.of('/').sockets.values()];
      return {
        // With Redis, events reach other processes only while both adapter clients are connected.
        status: redisClients.every((client) => client.status === 'ready') ? 'ok' : 'degraded',
        connections: sockets.length,
        users: new Set(sockets.map((socket) => (socket.data as SocketData).userId)).size,
        sharing: redisClients.length ? 'redis' : 'in-process',
      };
    },
    close: async () => {
      heartbeat.stop();
      lockWatcher.stop();
      followers.stop();
      io.disconnectSockets(true);
      await new Promise<void>((resolve) => io.close(() => resolve()));
      // quit() lets pending publishes (presence on the way out) finish instead of rejecting.
      await Promise.all(redisClients.map((client) => (client.status === 'ready' ? client.quit().catch(() => client.disconnect()) : client.disconnect())));
    },
  };
}
