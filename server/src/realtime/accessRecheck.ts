import type { Socket } from 'socket.io';
import type { BaseServices } from '../services.ts';
import { validateSessionToken } from '../auth/sessions.ts';
import { can } from '../policy/index.ts';
import { findPlan } from '../domain/plans/loadPlan.ts';
import type { AccessScope } from '../auth/accessScope.ts';
import type { PlanRooms } from './planRooms.ts';
import { socketDataOf } from './rooms.ts';
import type { SocketServer } from './socketServer.ts';

export interface AccessRecheck {
  /** Someone's access may have changed: every process forgets their cached sessions and checks their connections again. */
  accessChanged(scope: AccessScope): void;
  /** Runs on every server process when someone's access may have changed. */
  onAccessChanged(listener: (scope: AccessScope) => Promise<void>): void;
}

/**
 * Carries "access may have changed" to every server process (through the Redis adapter) and there
 * to whatever holds connections: this process's sockets leave the plan rooms they may no longer
 * follow, or disconnect when their session ended.
 */
export function startAccessRecheck({ io, subscriber, shared }: SocketServer, services: BaseServices, rooms: PlanRooms): AccessRecheck {
  const { logger, sessionCache } = services;
  const listeners: ((scope: AccessScope) => Promise<void>)[] = [recheckSockets];
  const runListeners = (scope: AccessScope) => {
    // Before anything re-checks a session, this process forgets the concerned cached ones.
    sessionCache.forget(scope);
    for (const listener of listeners) listener(scope).catch((error: unknown) => logger.error({ err: error }, 'access re-check failed'));
  };
  io.on('revalidate', runListeners);

  // Other processes' revocations arrive on the subscriber's connection: while it is down, no session is cached.
  if (subscriber && subscriber.status !== 'ready') sessionCache.suspend();
  subscriber?.on('ready', () => {
    // ioredis renews the subscriptions right after this event; a PING sent next is answered after them.
    process.nextTick(() =>
      subscriber.ping().then(
        () => sessionCache.resume(),
        (error: unknown) => logger.warn({ err: error }, 'Redis subscriber not answering; sessions stay uncached'),
      ),
    );
  });
  subscriber?.on('close', () => sessionCache.suspend());

  async function recheckSockets(scope: AccessScope) {
    for (const socket of io.of('/').sockets.values()) {
      const data = socketDataOf(socket);
      const concerned =
        scope.all ||
        scope.userIds?.includes(data.userId) ||
        scope.sessionIds?.includes(data.sessionId) ||
        (scope.formId !== undefined && (data.plans.has(scope.formId) || data.watching.has(scope.formId)));
      if (!concerned) continue;
      // Unknown is not revoked: a socket whose access cannot be read now (the database unreachable) keeps its rooms.
      await recheckSocket(socket).catch((error: unknown) =>
        logger.warn({ err: error, userId: data.userId }, 'access not re-checked; the socket keeps its rooms'),
      );
    }
  }

  async function recheckSocket(socket: Socket): Promise<void> {
    const data = socketDataOf(socket);
    const auth = await validateSessionToken(services, data.token);
    if (!auth) return void socket.disconnect(true);
    for (const formId of new Set([...data.plans.keys(), ...data.watching])) {
      const context = await findPlan(services, auth.actor, formId);
      if (!context || !can(auth.actor, 'followPlan', context)) await rooms.leave(socket, formId);
    }
  }

  return {
    accessChanged: (scope) => {
      runListeners(scope);
      // Other server processes exist only behind the Redis adapter.
      if (shared) io.serverSideEmit('revalidate', scope);
    },
    onAccessChanged: (listener) => void listeners.push(listener),
  };
}
