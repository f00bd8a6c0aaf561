import type { Socket } from 'socket.io';

/** What the gateway keeps on each socket from its handshake on. */
export interface SocketData {
  token: string;
  sessionId: string;
  userId: string;
  /** Plans this socket joined, with the step it is on. */
  plans: Map<string, string | null>;
  /** Plans whose events this socket follows without being present (a dashboard). */
  watching: Set<string>;
}

export const socketDataOf = (socket: Pick<Socket, 'data'>): SocketData => socket.data as SocketData;

/** Everyone following a plan's events: present on it or watching it. */
export const planRoom = (formId: string) => `plan:${formId}`;
/** The sockets present on a plan (a subset of its room, which also holds watchers). */
export const presentRoom = (formId: string) => `present:${formId}`;
/** The sockets present on one step of a plan: who is really on it, on any process. */
export const stepRoomPrefix = (formId: string) => `present:${formId}:`;
export const stepRoom = (formId: string, stepKey: string) => `${stepRoomPrefix(formId)}${stepKey}`;
export const userRoom = (userId: string) => `user:${userId}`;
