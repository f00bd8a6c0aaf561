import type { Hocuspocus, WebSocketLike } from '@hocuspocus/server';
import crossws from 'crossws/adapters/node';
import type { Logger } from '../logger.ts';

type ClientConnection = ReturnType<Hocuspocus['handleConnection']>;

/**
 * Node's HTTP upgrades to Hocuspocus: crossws owns the WebSocket, and each peer carries the
 * Hocuspocus client connection its messages and close go to.
 */
export function webSocketAdapter(hocuspocus: Hocuspocus, logger: Logger) {
  const clients = new WeakMap<object, ClientConnection>();
  return crossws({
    hooks: {
      open: (peer) => {
        clients.set(peer, hocuspocus.handleConnection(peer.websocket as unknown as WebSocketLike, peer.request as Request));
      },
      message: (peer, message) => clients.get(peer)?.handleMessage(message.uint8Array()),
      close: (peer, event) => clients.get(peer)?.handleClose({ code: event.code ?? 1000, reason: event.reason ?? '' }),
      error: (_peer, error) => logger.warn({ err: error }, 'collaboration socket error'),
    },
  });
}
