import type http from 'node:http';
import { Server as SocketIoServer, type Socket } from 'socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import type { RealtimeHealth } from '@csp/shared/api/health';
import type { BaseServices } from '../services.ts';
import { SESSION_COOKIE, validateSessionToken } from '../auth/sessions.ts';
import { isAllowedOrigin, sessionTokenFromCookie } from '../auth/socketHandshake.ts';
import { createPubSubClient } from '../kv/redis.ts';
import { unauthenticated } from '../errors.ts';
import { socketDataOf, userRoom, type SocketData } from './rooms.ts';

export const REALTIME_PATH = '/realtime';

export interface SocketServer {
  io: SocketIoServer;
  /**
   * The Redis adapter's subscriber: it carries other processes' events and room changes, so while
   * it is down they go unheard. Undefined on a process without Redis.
   */
  subscriber: Redis | undefined;
  /** Other server processes exist, behind the Redis adapter. */
  shared: boolean;
  /** This process's sockets, and whether events reach other processes (Redis adapter connected). */
  status(): RealtimeHealth;
  stop(): Promise<void>;
}

/**
 * Socket.IO on /realtime, shared between processes through Redis when configured: each socket is
 * authenticated from the session cookie at the handshake (same-origin only) and joins its user's room.
 */
export function startSocketServer(httpServer: http.Server, services: BaseServices): SocketServer {
  const { config, logger } = services;
  const io = new SocketIoServer(httpServer, {
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
  if (redisClients.length) io.adapter(createAdapter(redisClients[0]!, redisClients[1]!, { key: `${config.redisPrefix}socket.io` }));

  io.use(async (socket, next) => {
    try {
      const token = sessionTokenFromCookie(socket.request.headers.cookie, SESSION_COOKIE) ?? (socket.handshake.auth?.token as string | undefined) ?? null;
      const auth = token ? await validateSessionToken(services, token) : null;
      // The refusal's message is what the client's connect_error carries.
      if (!auth) return next(unauthenticated());
      const data: SocketData = { token: token!, sessionId: auth.sessionId, userId: auth.actor.id, plans: new Map(), watching: new Set() };
      socket.data = data;
      await socket.join(userRoom(auth.actor.id));
      next();
    } catch (error) {
      next(error as Error);
    }
  });

  return {
    io,
    subscriber: redisClients[1],
    shared: redisClients.length > 0,
    status: () => {
      const sockets = [...io.of('/').sockets.values()];
      return {
        // With Redis, events reach other processes only while both adapter clients are connected.
        status: redisClients.every((client) => client.status === 'ready') ? 'ok' : 'degraded',
        connections: sockets.length,
        users: new Set(sockets.map((socket) => socketDataOf(socket).userId)).size,
        sharing: redisClients.length ? 'redis' : 'in-process',
      };
    },
    stop: async () => {
      io.disconnectSockets(true);
      await new Promise<void>((resolve) => io.close(() => resolve()));
      // quit() lets pending publishes (presence on the way out) finish instead of rejecting.
      await Promise.all(redisClients.map((client) => (client.status === 'ready' ? client.quit().catch(() => client.disconnect()) : client.disconnect())));
    },
  };
}

/** The socket's user, freshly checked: the session may have ended since the handshake (the socket is then disconnected). */
export async function currentActor(services: BaseServices, socket: Socket) {
  const auth = await validateSessionToken(services, socketDataOf(socket).token);
  if (auth) return auth.actor;
  socket.disconnect(true);
  throw unauthenticated();
}
