import type http from 'node:http';
import type { Server as SocketIoServer } from 'socket.io';
import type { RealtimeHealth } from '@csp/shared/api/health';
import type { BaseServices } from '../services.ts';
import type { AccessScope } from '../auth/accessScope.ts';
import type { RealtimeEvents } from './events.ts';
import { startSocketServer } from './socketServer.ts';
import { startBroadcast } from './broadcast.ts';
import { startPresence } from './presence.ts';
import { startPlanRooms } from './planRooms.ts';
import { startAccessRecheck } from './accessRecheck.ts';

export { REALTIME_PATH } from './socketServer.ts';

export interface RealtimeGateway extends RealtimeEvents {
  io: SocketIoServer;
  /** The periodic presence heartbeat of all of this process's sockets, at once. */
  refreshPresence(): Promise<void>;
  /** Runs on every server process when someone's access may have changed. */
  onAccessChanged(listener: (scope: AccessScope) => Promise<void>): void;
  /** This process's sockets, and whether events reach other processes (Redis adapter connected). */
  status(): RealtimeHealth;
  close(): Promise<void>;
}

/**
 * /realtime, one module per concern: the socket server (handshake), events out to rooms, presence,
 * the rooms sockets join, and access re-checks. Each starts here and stops in reverse order.
 */
export function createRealtimeGateway(httpServer: http.Server, services: BaseServices): RealtimeGateway {
  const sockets = startSocketServer(httpServer, services);
  const broadcast = startBroadcast(sockets, services);
  const presence = startPresence(sockets, services, broadcast);
  const rooms = startPlanRooms(sockets, services, presence);
  const access = startAccessRecheck(sockets, services, rooms);
  const { stop: stopBroadcast, ...events } = broadcast;
  return {
    ...events,
    ...access,
    io: sockets.io,
    refreshPresence: presence.refresh,
    status: sockets.status,
    close: async () => {
      presence.stop();
      stopBroadcast();
      await sockets.stop();
    },
  };
}
