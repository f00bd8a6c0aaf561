import { parseStoredMessage, storedCovers } from '@csp/shared';
import type { StepDocument } from '#lib/realtime/collab.ts';

/** The origin of changes that hold nobody's words (a step's empty answers made ready): not this person's edits. */
export const PREPARED_ORIGIN = { prepared: true };

export type SaveStatus = { kind: 'idle' } | { kind: 'pending' } | { kind: 'saved'; at: number } | { kind: 'offline' } | { kind: 'error'; message: string };

/**
 * What the server has stored of one step's live document, as the person sees it next to the
 * title ("Saving…", "Saved at 10:42", "Offline").
 *
 * The browser never sends its view of the answers: its edits travel as Y.js updates, the server
 * merges them with everyone else's, stores the document and writes the step's record from it
 * (docs/collaboration.md). After each store the server names what it stored (a state vector);
 * everything this browser shows is saved once that covers its own document's state vector.
 * Edits made while offline stay in IndexedDB and merge when the connection returns.
 */
export class SaveTracker {
  status = $state<SaveStatus>({ kind: 'idle' });
  readonly #document: StepDocument;
  #stored: Uint8Array | null = null;
  #connected = false;
  /** This person changed the document while it was open (the step lock may be theirs). */
  #changedHere = false;

  constructor(document: StepDocument) {
    this.#document = document;
    document.doc.on('update', this.#onUpdate);
    document.provider.on('stateless', this.#onStateless);
  }

  /** This person's edits that the server has not stored yet (they are kept in IndexedDB meanwhile). */
  get hasUnsavedWork(): boolean {
    return this.#changedHere && (!this.#stored || !storedCovers(this.#stored, this.#document.doc));
  }

  /** The document is synced with the server: what waited is on its way. */
  connected(): void {
    this.#connected = true;
    if (this.status.kind === 'offline') this.status = { kind: 'pending' };
  }

  disconnected(): void {
    this.#connected = false;
    if (this.hasUnsavedWork && this.status.kind !== 'idle') this.status = { kind: 'offline' };
  }

  /** The server refused the document: edits stay in this browser. */
  refused(reason: string): void {
    if (this.#changedHere && this.hasUnsavedWork) this.status = { kind: 'error', message: `${reason}. Your changes are kept in this browser.` };
  }

  #onUpdate = (_update: Uint8Array, origin: unknown) => {
    // What the server sends and what IndexedDB loads are not this person's edits.
    if (origin === this.#document.provider || origin === this.#document.local || origin === PREPARED_ORIGIN) return;
    this.#changedHere = true;
    this.status = this.#connected ? { kind: 'pending' } : { kind: 'offline' };
  };

  #onStateless = ({ payload }: { payload: string }) => {
    const stored = parseStoredMessage(payload);
    if (!stored) return;
    this.#stored = stored;
    if (storedCovers(stored, this.#document.doc)) {
      if (this.status.kind === 'pending' || this.status.kind === 'offline') this.status = { kind: 'saved', at: Date.now() };
    } else if (this.#connected) {
      // Edits kept in this browser from an earlier visit, on their way now.
      this.status = { kind: 'pending' };
    }
  };

  /** Stops listening; resolves with whether this person changed the document while it was open. */
  close(): boolean {
    this.#document.doc.off('update', this.#onUpdate);
    this.#document.provider.off('stateless', this.#onStateless);
    return this.#changedHere;
  }
}
