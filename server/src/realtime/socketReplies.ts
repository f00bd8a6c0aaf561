import type { Socket } from 'socket.io';
import { AppError, type ErrorKind } from '../errors.ts';
import type { Logger } from '../logger.ts';

/** An acknowledgement: `{ ok: true, ... }`, or a refusal with its message and the error's kind as `code`. */
type SocketReply = ({ ok: true } & Record<string, unknown>) | { ok: false; error: string; code: ErrorKind | 'internal' };
type Ack = (reply: SocketReply) => void;

/** The one place an error becomes a socket's answer, as `errors.ts`'s kinds become HTTP statuses in http/errors.ts. */
function refusalOf(error: unknown): SocketReply {
  if (error instanceof AppError) return { ok: false, error: error.message, code: error.kind };
  return { ok: false, error: 'Internal error', code: 'internal' };
}

/**
 * Listens to a client event answered by acknowledgement. The handler replies on success and throws
 * to refuse; Socket.IO does not await handlers, and a rejection would end the process, so every
 * failure is answered here (and logged when it is not a refusal). Socket.IO sends one answer per
 * event: a failure after the reply (cleaning up) is only logged.
 */
export function answer(socket: Socket, event: string, logger: Logger, handler: (raw: unknown, reply: Ack) => Promise<void>): void {
  socket.on(event, (raw: unknown, ack?: Ack) => {
    const reply: Ack = typeof ack === 'function' ? ack : () => {};
    handler(raw, reply).catch((error: unknown) => {
      if (!(error instanceof AppError)) logger.error({ err: error, event }, 'realtime event failed');
      reply(refusalOf(error));
    });
  });
}
