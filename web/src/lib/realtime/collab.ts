import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { IndexeddbPersistence } from 'y-indexeddb';
import * as Y from 'yjs';
import { collabDocumentName } from '@csp/shared';

/** IndexedDB databases of step documents are named by the document: easy to find at sign-out. */
const LOCAL_PREFIX = 'plan:';
/** Meta key set once a local copy has been through a sync with the server. */
const SYNCED_ONCE = 'syncedOnce';

export interface StepDocument {
  readonly name: string;
  readonly doc: Y.Doc;
  readonly provider: HocuspocusProvider;
  readonly local: IndexeddbPersistence;
  /** Resolves when the browser's stored copy is loaded, with whether it was ever synced with the server. */
  readonly localReady: Promise<boolean>;
  destroy(): void;
}

/**
 * The live documents of one plan: every step document goes over ONE WebSocket to /collab
 * (Hocuspocus multiplexes them), and each is also kept in IndexedDB so edits made offline
 * survive a reload or a closed tab and merge when the connection returns.
 */
export class PlanCollab {
  readonly socket: HocuspocusProviderWebsocket;

  constructor() {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/collab`;
    // The session cookie authenticates the connection (same origin); retries never give up.
    this.socket = new HocuspocusProviderWebsocket({ url, maxAttempts: 0, maxDelay: 10_000 });
  }

  open(formId: string, stepKey: string): StepDocument {
    const name = collabDocumentName(formId, stepKey);
    const doc = new Y.Doc();
    const local = new IndexeddbPersistence(name, doc);
    const localReady = local.whenSynced.then(async () => Boolean(await local.get(SYNCED_ONCE).catch(() => false)));
    const provider = new HocuspocusProvider({ websocketProvider: this.socket, name, document: doc, token: null });
    provider.on('synced', () => void local.set(SYNCED_ONCE, 1).catch(() => {}));
    provider.attach();
    return {
      name,
      doc,
      provider,
      local,
      localReady,
      destroy() {
        provider.destroy();
        void local.destroy();
        doc.destroy();
      },
    };
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Removes every step document kept in this browser (at sign-out, on a shared school computer). */
export async function clearLocalDocuments(): Promise<void> {
  if (!('databases' in indexedDB)) return;
  const databases = await indexedDB.databases();
  await Promise.all(
    databases
      .filter((database) => database.name?.startsWith(LOCAL_PREFIX))
      .map(
        (database) =>
          new Promise<void>((resolve) => {
            const request = indexedDB.deleteDatabase(database.name!);
            request.onsuccess = request.onerror = request.onblocked = () => resolve();
          }),
      ),
  );
}
