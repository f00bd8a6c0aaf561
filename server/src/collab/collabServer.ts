import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { Hocuspocus, type Connection, type Extension, type WebSocketLike } from '@hocuspocus/server';
import crossws from 'crossws/adapters/node';
import * as Y from 'yjs';
import { eq } from 'drizzle-orm';
import { plans } from '../storage/schema.ts';
import { collabDocumentName, parseCollabDocumentName, writeAnswers, writeCompleted, type StepAnswers } from '@csp/shared';
import type { BaseServices } from '../services.ts';
import { SESSION_COOKIE, validateSessionToken } from '../auth/sessions.ts';
import { createPubSubClient } from '../kv/redis.ts';
import { canEditStep, canReadStep } from '../policy/plans.ts';
import { loadPlan } from '../domain/plans/loadPlan.ts';
import type { AccessScope, LiveDocuments } from '../realtime/events.ts';
import { isAllowedOrigin, sessionTokenFromCookie } from '../realtime/origin.ts';
import { DocumentStore } from './documentStore.ts';
import { PeerAwareRedis } from './peerAwareRedis.ts';
import type { CollaborationHealth } from '@csp/shared/api/health';

export const COLLAB_PATH = '/collab';
const LIVE_TTL_MS = 120_000;
const LIVE_REFRESH_MS = 45_000;
const liveKey = (documentName: string) => `collab:live:${documentName}`;

interface ConnectionContext {
  token: string;
  sessionId: string;
  userId: string;
  formId: string;
  stepKey: string;
}

interface OpenConnection {
  connection: Connection<ConnectionContext>;
  context: ConnectionContext;
  documentName: string;
  socketId: string;
}

export interface CollabServer extends LiveDocuments {
  hocuspocus: Hocuspocus<ConnectionContext>;
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Re-checks open connections in scope: closes those that lost access, makes read-only those that lost edit rights. */
  revalidate(scope: AccessScope): Promise<void>;
  /** Documents loaded and connections open on this process. */
  status(): Omit<CollaborationHealth, 'status'>;
  close(): Promise<void>;
}

/**
 * Hocuspocus on /collab: one Y.js document per plan step, authorized at connect from the session
 * and the policy module, seeded from the stored answers, persisted (debounced and on last
 * disconnect) in PostgreSQL; with Redis, shared between server processes.
 */
export function createCollabServer(services: BaseServices): CollabServer {
  const { config, kv, logger, storage, banks } = services;
  const open = new Map<string, OpenConnection>();
  const documents = new DocumentStore(storage.db);

  async function store(documentName: string, document: Y.Doc) {
    await documents.store(documentName, parseCollabDocumentName(documentName)!.formId, document);
  }

  async function stepOf(stepKey: string, questionBankVersion: number | null) {
    const bank = await banks.resolve(questionBankVersion);
    return bank.steps.find((step) => step.key === stepKey) ?? null;
  }

  async function stepOfPlan(formId: string, stepKey: string) {
    const [plan] = await storage.db.select({ version: plans.questionBankVersion }).from(plans).where(eq(plans.id, formId)).limit(1);
    return plan ? stepOf(stepKey, plan.version) : null;
  }

  const access: Extension<ConnectionContext> = {
    extensionName: 'csp-access',
    async onAuthenticate({ documentName, requestHeaders, token, connectionConfig }) {
      const target = parseCollabDocumentName(documentName);
      if (!target) throw new Error('Unknown document');
      const sessionToken = sessionTokenFromCookie(requestHeaders.get('cookie'), SESSION_COOKIE) ?? (token || null);
      const auth = sessionToken ? await validateSessionToken(services, sessionToken) : null;
      if (!auth) throw new Error('Unauthorized');
      const context = await loadPlan(services, auth.actor, target.formId).catch(() => null);
      if (!context || !(await stepOf(target.stepKey, context.plan.questionBankVersion))) throw new Error('Not found');
      if (!canReadStep(context.access, target.stepKey)) throw new Error('Access denied');
      connectionConfig.readOnly = !context.writable || !canEditStep(context.access, target.stepKey);
      return { token: sessionToken!, sessionId: auth.sessionId, userId: auth.actor.id, formId: target.formId, stepKey: target.stepKey };
    },
    async connected({ connection, context, documentName, socketId }) {
      open.set(socketId, { connection, context, documentName, socketId });
      await kv.hashSet(liveKey(documentName), `${context.userId}:${socketId}`, '1', LIVE_TTL_MS).catch(() => {});
    },
    async onDisconnect({ context, documentName, socketId }) {
      open.delete(socketId);
      if (context?.userId) await kv.hashDelete(liveKey(documentName), `${context.userId}:${socketId}`).catch(() => {});
    },
  };

  const persistence: Extension<ConnectionContext> = {
    extensionName: 'csp-persistence',
    async onLoadDocument({ document, documentName }) {
      const target = parseCollabDocumentName(documentName)!;
      const step = await stepOfPlan(target.formId, target.stepKey);
      if (!step) throw new Error('Not found');
      await documents.load(document, documentName, target.formId, step);
      return document;
    },
    async onStoreDocument({ document, documentName }) {
      await store(documentName, document);
    },
    // Changes that arrived from another process through Redis schedule no store here; a process
    // that unloads a document stores it first (merged, and skipped when nothing changed).
    async beforeUnloadDocument({ document, documentName }) {
      await store(documentName, document);
    },
    async afterUnloadDocument({ documentName }) {
      documents.forget(documentName);
    },
  };

  const extensions: Extension[] = [access, persistence];
  if (config.redisUrl) {
    const redisUrl = config.redisUrl;
    extensions.unshift(
      new PeerAwareRedis({
        prefix: `${config.redisPrefix}hocuspocus`,
        identifier: `csp-${process.pid}-${randomBytes(4).toString('hex')}`,
        createClient: () => createPubSubClient(redisUrl, (error) => logger.warn({ err: error }, 'document update not published: Redis unavailable')),
        onUnavailable: (error, documentName) => logger.warn({ err: error, documentName }, 'document not shared with other processes until Redis is back'),
      }),
    );
  }

  const hocuspocus = new Hocuspocus<ConnectionContext>({
    name: `csp-${process.pid}`,
    quiet: true,
    debounce: 2_000,
    maxDebounce: 10_000,
    unloadImmediately: true,
    extensions,
  });

  const ws = crossws({
    hooks: {
      open: (peer) => {
        (peer as unknown as { hocuspocus: ReturnType<typeof hocuspocus.handleConnection> }).hocuspocus = hocuspocus.handleConnection(
          peer.websocket as unknown as WebSocketLike,
          peer.request as Request,
        );
      },
      message: (peer, message) =>
        (peer as unknown as { hocuspocus?: { handleMessage(data: Uint8Array): void } }).hocuspocus?.handleMessage(message.uint8Array()),
      close: (peer, event) =>
        (peer as unknown as { hocuspocus?: { handleClose(event: { code: number; reason: string }): void } }).hocuspocus?.handleClose({
          code: event.code ?? 1000,
          reason: event.reason ?? '',
        }),
      error: (_peer, error) => logger.warn({ err: error }, 'collaboration socket error'),
    },
  });

  /** This process's "live editor" marks, written again: every open connection's. */
  function refreshLiveMarks() {
    const marks = [...open.values()].map(({ context, documentName, socketId }) => ({
      key: liveKey(documentName),
      field: `${context.userId}:${socketId}`,
      value: '1',
      ttlMs: LIVE_TTL_MS,
    }));
    void kv.hashSetMany(marks).catch((error: unknown) => logger.warn({ err: error }, 'live-editor marks not refreshed; retrying at the next tick'));
  }
  // Open connections keep their mark; a killed process's marks lapse on their own.
  const refresher = setInterval(refreshLiveMarks, LIVE_REFRESH_MS);
  refresher.unref();
  // Redis back (perhaps empty): marks again at once, not at the next tick, or live editors count as not live.
  kv.onReconnect(refreshLiveMarks);

  const pending = new Set<Promise<unknown>>();

  async function applySaved(formId: string, stepKey: string, answers: StepAnswers, completed: boolean, savedBy: string) {
    const documentName = collabDocumentName(formId, stepKey);
    // A live saver's answers merged through the document already. Unknown (Redis down) applies:
    // only the fields this save changed in the record are written, so nobody's text goes.
    if (await isLive(documentName, savedBy)) return;
    const step = await stepOfPlan(formId, stepKey);
    if (!step) return;
    const write = (document: Y.Doc) => {
      writeAnswers(document, step, answers, 'rest-save');
      writeCompleted(document, completed, 'rest-save');
    };
    // Loaded here: change it in place (connected peers and other processes get the update).
    const loaded = hocuspocus.documents.get(documentName);
    if (loaded && !loaded.isLoading) return write(loaded);
    const direct = await hocuspocus.openDirectConnection(documentName, { token: '', sessionId: '', userId: savedBy, formId, stepKey });
    try {
      await direct.transact(write);
    } finally {
      await direct.disconnect();
    }
  }

  /**
   * Whether the user edits the document live: this process's own connections decide first; other
   * processes' only through their marks in Redis, counted as not live while Redis cannot answer.
   */
  async function isLive(documentName: string, userId: string): Promise<boolean> {
    if ([...open.values()].some((entry) => entry.documentName === documentName && entry.context.userId === userId)) return true;
    try {
      const fields = Object.keys(await kv.hashGetAll(liveKey(documentName)));
      return fields.some((field) => field.slice(0, field.indexOf(':')) === userId);
    } catch (error) {
      logger.warn({ err: error, documentName }, 'live editors of other processes unknown: Redis unavailable');
      return false;
    }
  }

  return {
    hocuspocus,
    handleUpgrade(request, socket, head) {
      if (!isAllowedOrigin(request, config.appUrl)) {
        socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      void ws.handleUpgrade(request, socket, head).catch((error: unknown) => {
        logger.warn({ err: error }, 'collaboration upgrade failed');
        socket.destroy();
      });
    },

    isLiveEditor(formId, stepKey, userId) {
      return isLive(collabDocumentName(formId, stepKey), userId);
    },

    /**
     * A save by someone not editing live (a script, a stale tab) reaches the live document, so
     * everyone connected sees it. Runs after the response (the save is already the record);
     * shutdown waits for it.
     */
    applySavedAnswers(formId, stepKey, answers, completed, savedBy) {
      const task = applySaved(formId, stepKey, answers as StepAnswers, completed, savedBy).catch((error: unknown) =>
        logger.error({ err: error, formId, stepKey }, 'could not apply a saved step to its live document'),
      );
      pending.add(task);
      void task.finally(() => pending.delete(task));
    },

    async revalidate(scope) {
      for (const entry of [...open.values()]) {
        const { context, connection } = entry;
        const concerned =
          scope.all || scope.userIds?.includes(context.userId) || scope.sessionIds?.includes(context.sessionId) || scope.formId === context.formId;
        if (!concerned) continue;
        const auth = await validateSessionToken(services, context.token);
        const plan = auth ? await loadPlan(services, auth.actor, context.formId).catch(() => null) : null;
        if (!auth || !plan || !canReadStep(plan.access, context.stepKey)) {
          connection.close({ code: 4403, reason: 'Access revoked' });
          continue;
        }
        connection.readOnly = !plan.writable || !canEditStep(plan.access, context.stepKey);
      }
    },

    status() {
      return { documents: hocuspocus.getDocumentsCount(), connections: open.size, sharing: config.redisUrl ? 'redis' : 'in-process' };
    },

    async close() {
      clearInterval(refresher);
      await Promise.all(pending);
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
