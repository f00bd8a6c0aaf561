/**
 * Live co-editing clients for tests: a real @hocuspocus/provider (Node's WebSocket) on one plan
 * step's document, authenticated with a session token. A client can drop its connection and come
 * back (to the same or another server process) with the SAME Y.Doc, so edits made while
 * disconnected merge on reconnect, as a browser tab's do.
 */
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { ANSWERS_MAP, collabDocumentName, newTableRow, parseStoredMessage, readAnswers, storedCovers, type StepAnswers } from '@csp/shared';
import { waitFor } from './wait.ts';

/** Hocuspocus message types (the wire protocol of @hocuspocus/provider 4). */
const MESSAGE_SYNC_STATUS = 8;

export interface LiveClient {
  readonly label: string;
  readonly doc: Y.Doc;
  readonly documentName: string;
  /** The server this client is (or was last) connected to. */
  baseUrl: string;
  provider: HocuspocusProvider | null;
  /** Document closes sent by the server ("close" events) and socket closes, newest last. */
  readonly closes: { code: number; reason: string }[];
  readonly authFailures: string[];
  /** Server acknowledgements of this client's updates: applied (true) or refused as read-only (false). */
  readonly syncAcks: boolean[];
  /** Connected, authenticated and through the first sync handshake. */
  isLive(): boolean;
  /** 'read-write' | 'readonly' as the server authorized this connection. */
  scope(): string | undefined;
  answers(): StepAnswers;
  /** Drops the connection (the provider and its socket); the document stays, and accepts local edits. */
  disconnect(): void;
  /** A new provider on `baseUrl` (default: the last one) for the same Y.Doc; resolves once synced. */
  reconnect(baseUrl?: string): Promise<void>;
  /** Resolves when the server has acknowledged every local update sent so far. */
  settled(): Promise<void>;
  /** The state vector the server last said it stored (its `storedMessage`), null before the first. */
  stored: Uint8Array | null;
  /** Resolves when the server has said it stored everything this client's document holds. */
  saved(): Promise<void>;
  destroy(): void;
}

interface OpenOptions {
  /** Reuse a document (edits made on it offline merge when the connection is up). */
  doc?: Y.Doc;
  label?: string;
  /** Wait until synced (default) or only start the connection. */
  waitForSync?: boolean;
  timeoutMs?: number;
}

/**
 * Opens a live client; with `waitForSync` (default) resolves once synced and rejects when the
 * server refuses the connection (the rejection message names the reason).
 */
export async function openLiveClient(baseUrl: string, token: string, formId: string, stepKey: string, options: OpenOptions = {}): Promise<LiveClient> {
  const doc = options.doc ?? new Y.Doc();
  const documentName = collabDocumentName(formId, stepKey);
  const closes: { code: number; reason: string }[] = [];
  const authFailures: string[] = [];
  const syncAcks: boolean[] = [];
  let socket: HocuspocusProviderWebsocket | null = null;

  const client: LiveClient = {
    label: options.label ?? 'client',
    doc,
    documentName,
    baseUrl,
    provider: null,
    closes,
    authFailures,
    syncAcks,
    isLive: () => !!client.provider && client.provider.isAuthenticated && client.provider.synced,
    scope: () => client.provider?.authorizedScope,
    answers: () => readAnswers(doc),
    disconnect() {
      client.provider?.destroy();
      socket?.destroy();
      client.provider = null;
      socket = null;
    },
    async reconnect(url = client.baseUrl) {
      client.disconnect();
      client.baseUrl = url;
      start();
      await whenSynced(options.timeoutMs);
    },
    settled: () =>
      waitFor(`${client.label}: server acknowledged every local update`, () => client.provider !== null && client.provider.unsyncedChanges === 0, {
        timeoutMs: options.timeoutMs ?? 15_000,
      }).then(() => {}),
    stored: null,
    saved: () =>
      waitFor(`${client.label}: server stored everything the document holds`, () => client.stored !== null && storedCovers(client.stored, doc), {
        timeoutMs: options.timeoutMs ?? 15_000,
      }).then(() => {}),
    destroy: () => client.disconnect(),
  };

  function start() {
    socket = new HocuspocusProviderWebsocket({ url: `${client.baseUrl.replace(/^http/, 'ws')}/collab`, maxAttempts: 0 });
    const provider = new HocuspocusProvider({
      websocketProvider: socket,
      name: documentName,
      document: doc,
      token,
      onAuthenticationFailed: ({ reason }) => void authFailures.push(reason),
      onClose: ({ event }) => void closes.push({ code: event.code, reason: event.reason }),
      onStateless: ({ payload }) => void (client.stored = parseStoredMessage(payload) ?? client.stored),
      onMessage: ({ message }) => {
        // A SyncStatus reply tells whether the server applied our update (false: refused, read-only).
        message.readVarString();
        if ((message.readVarUint() as number) === MESSAGE_SYNC_STATUS) syncAcks.push((message.readVarUint() as number) === 1);
      },
    });
    client.provider = provider;
    provider.attach();
  }

  async function whenSynced(timeoutMs = 15_000) {
    const failuresBefore = authFailures.length;
    await waitFor(
      `${client.label}: synced with ${documentName}`,
      () => {
        if (authFailures.length > failuresBefore) throw new RefusedError(authFailures.at(-1)!);
        return client.isLive();
      },
      { timeoutMs },
    ).catch((error: unknown) => {
      // A refusal is final: report it as such, not as a timeout.
      if (authFailures.length > failuresBefore) throw new RefusedError(authFailures.at(-1)!);
      throw error;
    });
  }

  start();
  if (options.waitForSync !== false) {
    try {
      await whenSynced(options.timeoutMs);
    } catch (error) {
      client.disconnect();
      throw error;
    }
  }
  return client;
}

class RefusedError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`collaboration connection refused: ${reason}`);
    this.reason = reason;
  }
}

/** Connects and expects the server to refuse before any sync: resolves with the refusal reason. */
export async function expectRefused(baseUrl: string, token: string, formId: string, stepKey: string): Promise<{ reason: string; received: StepAnswers }> {
  const client = await openLiveClient(baseUrl, token, formId, stepKey, { waitForSync: false, label: 'refused' });
  try {
    const reason = await waitFor('the server to refuse the connection', () => client.authFailures[0]);
    return { reason, received: client.answers() };
  } finally {
    client.destroy();
  }
}

/** The Y.Text of a text/textarea answer (it must exist in the document). */
export function textOf(doc: Y.Doc, questionId: string): Y.Text {
  const value = doc.getMap(ANSWERS_MAP).get(questionId);
  if (!(value instanceof Y.Text)) throw new Error(`${questionId} is not a Y.Text in the document`);
  return value;
}

/** The rows of a table answer (it must exist in the document). */
export function rowsOf(doc: Y.Doc, questionId: string): Y.Array<Y.Map<unknown>> {
  const table = doc.getMap(ANSWERS_MAP).get(questionId);
  if (!(table instanceof Y.Map)) throw new Error(`${questionId} is not a table in the document`);
  return table.get('rows') as Y.Array<Y.Map<unknown>>;
}

/** A new table row as the shared document shape stores it (its id, a Y.Text per cell). */
export const tableRow = (cells: string[]): Y.Map<unknown> => newTableRow(cells);

/** The plain answers of an encoded Y.js state (a stored collab_documents row). */
export function answersOfState(state: Uint8Array): StepAnswers {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, state);
  const answers = readAnswers(doc);
  doc.destroy();
  return answers;
}

/** Same Y.js content: equal state vectors and equal answers. */
function sameContent(a: Y.Doc, b: Y.Doc): boolean {
  return (
    Buffer.from(Y.encodeStateVector(a)).equals(Buffer.from(Y.encodeStateVector(b))) &&
    JSON.stringify(sorted(readAnswers(a))) === JSON.stringify(sorted(readAnswers(b)))
  );
}

export function sorted(answers: StepAnswers): StepAnswers {
  return Object.fromEntries(Object.entries(answers).sort(([a], [b]) => a.localeCompare(b)));
}

/** Waits (bounded) until every client is live and all documents hold the same content. */
export async function waitForConvergence(clients: LiveClient[], timeoutMs = 20_000): Promise<StepAnswers> {
  await waitFor(
    `${clients.length} documents to converge`,
    () => {
      if (!clients.every((client) => client.isLive())) return false;
      return clients.every((client) => sameContent(client.doc, clients[0]!.doc));
    },
    { timeoutMs },
  ).catch((error: unknown) => {
    const views = clients.map(
      (client) => `${client.label} (${client.isLive() ? 'live' : 'not live'}): ${JSON.stringify(sorted(client.answers())).slice(0, 600)}`,
    );
    throw new Error(`${(error as Error).message}\n${views.join('\n')}`);
  });
  return clients[0]!.answers();
}
