import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { Hocuspocus, type Extension } from '@hocuspocus/server';
import { collabDocumentName } from '@csp/shared';
import type { CollaborationHealth } from '@csp/shared/api/health';
import type { BaseServices } from '../services.ts';
import { createPubSubClient } from '../kv/redis.ts';
import type { AccessScope } from '../auth/accessScope.ts';
import type { LiveDocuments } from './liveDocuments.ts';
import type { ConnectionContext } from './connectionContext.ts';
import { AccessExtension } from './extensions/AccessExtension.ts';
import { LiveEditorsExtension } from './extensions/LiveEditorsExtension.ts';
import { PeerAwareRedis } from './extensions/PeerAwareRedis.ts';
import { PersistenceExtension } from './extensions/PersistenceExtension.ts';
import { SavedAnswersApplier } from './savedAnswers.ts';
import { webSocketAdapter } from './webSocketAdapter.ts';

export const COLLAB_PATH = '/collab';

export interface CollabServer extends LiveDocuments {
  hocuspocus: Hocuspocus<ConnectionContext>;
  /** Takes a WebSocket upgrade whose path and Origin the HTTP server has already checked. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Re-checks open connections in scope: closes those that lost access, makes read-only those that lost edit rights. */
  revalidate(scope: AccessScope): Promise<void>;
  /** Documents loaded and connections open on this process. */
  status(): Omit<CollaborationHealth, 'status'>;
  close(): Promise<void>;
}

/**
 * Hocuspocus on /collab: one Y.js document per plan step. Each concern is one extension (access,
 * persistence, live editors, and with Redis the sharing between processes); this module wires
 * them and answers the rest of the server.
 */
export function createCollabServer(services: BaseServices): CollabServer {
  const { config, kv, logger } = services;
  const access = new AccessExtension(services);
  const liveEditors = new LiveEditorsExtension(kv, logger);
  const persistence = new PersistenceExtension(services);
  const extensions: Extension[] = [access, persistence, liveEditors];
  if (config.redisUrl) {
    const redisUrl = config.redisUrl;
    extensions.unshift(
      new PeerAwareRedis({
        prefix: `${config.redisPrefix}hocuspocus`,
        identifier: `csp-${process.pid}-${randomBytes(4).toString('hex')}`,
        createClient: () =>
          createPubSubClient(redisUrl, (error, command) =>
            logger.warn({ err: error, command }, 'document updates not shared with other processes: Redis unavailable'),
          ),
        onUnavailable: (error, documentName) => logger.warn({ err: error, documentName }, 'document not shared with other processes until Redis is back'),
      }),
    );
  }

  const hocuspocus = new Hocuspocus<ConnectionContext>({
    name: `csp-${process.pid}`,
    quiet: true,
    debounce: config.collabStoreDebounceMs,
    maxDebounce: Math.max(10_000, config.collabStoreDebounceMs),
    unloadImmediately: true,
    extensions,
  });
  const ws = webSocketAdapter(hocuspocus, logger);
  const savedAnswers = new SavedAnswersApplier(hocuspocus, logger);

  return {
    hocuspocus,
    handleUpgrade(request, socket, head) {
      void ws.handleUpgrade(request, socket, head).catch((error: unknown) => {
        logger.warn({ err: error }, 'collaboration upgrade failed');
        socket.destroy();
      });
    },

    isLiveEditor(formId, stepKey, userId) {
      return liveEditors.isLive(collabDocumentName(formId, stepKey), userId);
    },

    applySavedAnswers(saved) {
      savedAnswers.apply(saved);
    },

    async revalidate(scope) {
      for (const { context, connection } of [...liveEditors.connections()]) {
        const concerned =
          scope.all || scope.userIds?.includes(context.userId) || scope.sessionIds?.includes(context.sessionId) || scope.formId === context.formId;
        if (!concerned) continue;
        // Unknown is not revoked: a connection whose access cannot be read now keeps what it had.
        const now = await access.recheck(context).catch((error: unknown) => {
          logger.warn({ err: error, formId: context.formId }, 'access not re-checked; the connection keeps its access');
          return null;
        });
        if (now === 'revoked') connection.close({ code: 4403, reason: 'Access revoked' });
        else if (now) connection.readOnly = now === 'read-only';
      }
    },

    status() {
      return { documents: hocuspocus.getDocumentsCount(), connections: liveEditors.size, sharing: config.redisUrl ? 'redis' : 'in-process' };
    },

    async close() {
      persistence.close();
      liveEditors.stop();
      await savedAnswers.drain();
      // Closing connections stores each document at once (unloadImmediately); then flush the rest.
      hocuspocus.closeConnections();
      hocuspocus.flushPendingStores();
      for (let waited = 0; hocuspocus.getDocumentsCount() > 0 && waited < 5_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      ws.closeAll(1001, 'Server shutting down', true);
      // The Redis extension's publishers and lock client go with the server.
      await hocuspocus.hooks('onDestroy', { instance: hocuspocus });
    },
  };
}
