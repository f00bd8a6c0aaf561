import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { IndexeddbPersistence } from 'y-indexeddb';
import * as Y from 'yjs';
import { collabDocumentName } from '@csp/shared';

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
  readonly #userId: string;

  /**
   * `userId` names this person's local copies: on a shared computer the next person never opens
   * (or saves) edits someone else made offline, and a person's unsent edits survive signing out
   * until they open that step again.
   */
  constructor(userId: string) {
    this.#userId = userId;
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/collab`;
    // The session cookie authenticates the connection (same origin); retries never give up.
    this.socket = new HocuspocusProviderWebsocket({ url, maxAttempts: 0, maxDelay: 10_000 });
    window.addEventListener('online', this.#reconnect);
  }

  /**
   * The network is back: a socket that lived through the outage may be one the server has long
   * closed (it is noticed only when no message arrives for half a minute), so a fresh one syncs now.
   */
  #reconnect = () => {
    // Closing the socket (not `disconnect()`, which stops its retries) lets the provider connect again as after any drop.
    this.socket.webSocket?.close();
  };

  open(formId: string, stepKey: string): StepDocument {
    const name = collabDocumentName(formId, stepKey);
    const doc = new Y.Doc();
    const local = new IndexeddbPersistence(`csp:${this.#userId}:${name}`, doc);
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
    window.removeEventListener('online', this.#reconnect);
    this.socket.destroy();
  }
}
