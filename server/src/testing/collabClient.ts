import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import * as Y from 'yjs';
import { collabDocumentName, readAnswers } from '@csp/shared';
import { SESSION_COOKIE } from '../auth/sessions.ts';
import type { HttpClient } from './httpClient.ts';

export interface CollabClient {
  doc: Y.Doc;
  provider: HocuspocusProvider;
  socket: HocuspocusProviderWebsocket;
  answers(): Record<string, unknown>;
  /** Resolves once the provider has no unsynced local changes. */
  settled(): Promise<void>;
  destroy(): void;
}

/**
 * A real @hocuspocus/provider client (Node's WebSocket) on a plan step's document, authenticated
 * with the session of a signed-in HttpClient (sent as the provider token: Node sockets carry no cookies).
 */
export async function openCollabClient(
  baseUrl: string,
  session: HttpClient,
  formId: string,
  stepKey: string,
  options: { waitForSync?: boolean } = {},
): Promise<CollabClient & { authFailure: Promise<string> }> {
  const doc = new Y.Doc();
  const socket = new HocuspocusProviderWebsocket({ url: `${baseUrl.replace(/^http/, 'ws')}/collab`, maxAttempts: 0 });
  let rejectAuth: (reason: string) => void = () => {};
  const authFailure = new Promise<string>((resolve) => (rejectAuth = resolve));
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const provider: HocuspocusProvider = new HocuspocusProvider({
    websocketProvider: socket,
    name: collabDocumentName(formId, stepKey),
    document: doc,
    token: session.cookies.get(SESSION_COOKIE) ?? '',
    onAuthenticationFailed: ({ reason }) => rejectAuth(reason),
    onSynced: () => markSynced(),
  });
  provider.attach();
  if (options.waitForSync !== false) await Promise.race([synced, authFailure.then((reason) => Promise.reject(new Error(`collab auth failed: ${reason}`)))]);
  return {
    doc,
    provider,
    socket,
    authFailure,
    answers: () => readAnswers(doc),
    settled: () =>
      new Promise<void>((resolve) => {
        const check = () => (provider.unsyncedChanges === 0 ? resolve() : setTimeout(check, 10));
        check();
      }),
    destroy: () => {
      provider.destroy();
      socket.destroy();
    },
  };
}
