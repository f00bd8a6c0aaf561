import type * as Y from 'yjs';
import type { Logger } from '../logger.ts';
import { windowBatcher } from '../batching.ts';
import type { Database } from '../storage/database.ts';
import { collabUpdates } from '../storage/schema.ts';

/**
 * How long appends wait to share one INSERT. Edits are durable within this window plus one
 * statement (well under the second docs/collaboration.md promises); a wider window costs nothing
 * per edit, a narrower one a statement per event-loop turn (at 1,000 editors about 30 per second
 * against 20).
 */
const APPEND_WINDOW_MS = 50;
/** Rows of one INSERT: two parameters each, far below PostgreSQL's 65,535. */
const APPEND_BATCH_MAX = 1_000;

interface Append {
  name: string;
  update: Uint8Array;
}

/**
 * The write-ahead of live documents (`collab_updates`): each update this process's document takes
 * from a connection is appended within `APPEND_WINDOW_MS`, in one multi-row INSERT with every other
 * update of the window, so a process that dies between two stores loses none of what it relayed.
 * A store claims the rows appended so far (their updates are in the state it encodes) and deletes
 * them once the state is written; a load applies whatever rows are left (a process that died).
 *
 * Each process compacts only rows it appended or read at load, never a range of ids: another
 * process's row may hold an update that has not reached this process's copy (Redis is not
 * instant), and deleting it with this state would lose it if that process died.
 */
export class WriteAhead {
  private readonly appends;
  /** Ids of this document's rows in the table (appended, or read at load), not compacted yet. */
  private readonly appended = new WeakMap<Y.Doc, number[]>();
  /** This document's appends not answered yet. */
  private readonly pending = new WeakMap<Y.Doc, Set<Promise<unknown>>>();

  private readonly logger: Logger;

  constructor(db: Database, logger: Logger) {
    this.logger = logger;
    this.appends = windowBatcher<Append, number | null>(
      async (batch) => {
        try {
          // PostgreSQL returns the rows of an INSERT … VALUES in the order of its values.
          const rows = await db
            .insert(collabUpdates)
            .values(batch.map(({ name, update }) => ({ name, update })))
            .returning({ id: collabUpdates.id });
          return rows.map((row) => row.id);
        } catch (error) {
          // A database blip: relaying goes on, and the debounced store still covers these updates.
          logger.warn({ err: error, updates: batch.length }, 'document updates not appended to the write-ahead; the next store covers them');
          return batch.map(() => null);
        }
      },
      APPEND_BATCH_MAX,
      APPEND_WINDOW_MS,
    );
  }

  /** Appends an update `document` has applied (it never throws; a failed append is logged). */
  append(document: Y.Doc, name: string, update: Uint8Array): void {
    const pending = this.pending.get(document) ?? new Set();
    this.pending.set(document, pending);
    // Never rejects: a store waiting for it, or nobody, must not see an append's failure.
    const task = this.appends.load({ name, update }).then(
      (id) => id !== null && this.adopt(document, [id]),
      (error: unknown) => this.logger.warn({ err: error, documentName: name }, 'document update not appended to the write-ahead'),
    );
    pending.add(task);
    void task.finally(() => pending.delete(task));
  }

  /** Rows whose updates `document` holds (read at load): compacted with its next store. */
  adopt(document: Y.Doc, ids: readonly number[]): void {
    if (ids.length === 0) return;
    const known = this.appended.get(document);
    if (known) known.push(...ids);
    else this.appended.set(document, [...ids]);
  }

  /**
   * The rows a store of `document` may delete once its state is written: call it right before the
   * state is encoded. It first waits for the appends already made (at most the window and one
   * statement), so a store leaves no row of what it stored behind, also when the document unloads.
   */
  async claim(document: Y.Doc): Promise<number[]> {
    const pending = this.pending.get(document);
    if (pending?.size) await Promise.all([...pending]);
    return [...(this.appended.get(document) ?? [])];
  }

  /** The claimed rows are deleted. */
  compacted(document: Y.Doc, ids: readonly number[]): void {
    const known = this.appended.get(document);
    if (!known || ids.length === 0) return;
    const gone = new Set(ids);
    this.appended.set(
      document,
      known.filter((id) => !gone.has(id)),
    );
  }
}
