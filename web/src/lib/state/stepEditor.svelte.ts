import * as Y from 'yjs';
import {
  ANSWERS_MAP,
  ROW_ID,
  TABLE_CELL_MAX_LENGTH,
  TABLE_MAX_ROWS,
  newTableRow,
  awarenessStateSchema,
  decodePosition,
  encodePosition,
  prepareAnswers,
  readAnswers,
  writeCell,
  type Answer,
  type AwarenessCursor,
  type AwarenessUser,
  type Question,
  type Step,
  type StepAnswers,
} from '@csp/shared';
import type { StepDocument } from '#lib/realtime/collab.ts';
import { colourFor } from './presence.svelte.ts';
import { PREPARED_ORIGIN, SaveTracker } from './saveTracker.svelte.ts';
import { CoEditorNews } from './coEditorNews.svelte.ts';
import type { PlanState } from './plan.svelte.ts';

export interface FieldPerson {
  clientId: number;
  userId: string;
  name: string;
  colour: string;
}

/** Another person's caret and selection in a text, as awareness carries them. */
export interface RemoteCursor extends FieldPerson {
  cursor: AwarenessCursor;
}

/** Another person's caret (`head`) and selection (from `anchor`), as indexes into the text now. */
export interface RemoteCaret extends FieldPerson {
  anchor: number;
  head: number;
}

/** A table row as the editor lists it: its stable id and its Y.Map (cells as Y.Text by column index). */
export interface TableRow {
  id: string;
  row: Y.Map<unknown>;
}

/** Where the live document stands: what the person sees next to the step title. */
export type LiveState = 'connecting' | 'live' | 'offline' | 'refused';

/**
 * One open step: its live Y.js document (shared over the plan's collaboration socket and kept in
 * IndexedDB), the answers as plain values for rendering, who is in which field (awareness), and
 * what the server has stored of it. Local edits go straight into the document (text fields bind to
 * Y.Text directly); the server stores it and writes the step's record from it.
 */
export class StepEditor {
  readonly step: Step;
  readonly stepNumber: number;
  readonly document: StepDocument;
  readonly answersMap: Y.Map<unknown>;
  readonly saves: SaveTracker;

  answers = $state.raw<StepAnswers>({});
  live = $state<LiveState>('connecting');
  /** The server connected this document read-only (view-only share or archived year). */
  serverReadOnly = $state(false);
  /** Editing may start: the document is synced now, or this browser holds a synced copy. */
  ready = $state(false);
  refusal = $state('');
  people = $state.raw<Record<string, FieldPerson[]>>({});
  cursors = $state.raw<RemoteCursor[]>([]);
  /** Who moved to which question, told to screen readers politely and not too often. */
  readonly #news: CoEditorNews;

  readonly #cleanups: (() => void)[] = [];
  readonly #rowEntries = new WeakMap<Y.Map<unknown>, TableRow>();
  // Never rendered: plain collections on purpose.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #tableUndos = new Map<string, Y.UndoManager>();
  /** The origin of this person's table changes (rows added, removed, pasted; choices). */
  readonly #tableOrigin = { table: true };

  constructor(plan: PlanState, step: Step, stepNumber: number, me: { userId: string; name: string }) {
    this.step = step;
    this.stepNumber = stepNumber;
    this.document = plan.collab.open(plan.id, step.key);
    const { doc, provider } = this.document;
    this.answersMap = doc.getMap(ANSWERS_MAP);
    this.saves = new SaveTracker(this.document);
    this.#news = new CoEditorNews(step);
    this.#cleanups.push(() => this.#news.stop());

    const refresh = () => (this.answers = readAnswers(doc));
    doc.on('update', refresh);
    this.#cleanups.push(() => doc.off('update', refresh));

    void this.document.localReady.then((syncedBefore) => {
      refresh();
      if (syncedBefore) this.ready = true;
    });

    const onSynced = () => {
      this.live = 'live';
      this.ready = true;
      this.serverReadOnly = provider.authorizedScope === 'readonly';
      // The server prepares every answer when the document loads; a question added since is prepared here.
      if (!this.serverReadOnly && plan.views[stepNumber - 1]?.canEdit) prepareAnswers(doc, step, PREPARED_ORIGIN);
      refresh();
      this.saves.connected();
    };
    const onStatus = ({ status }: { status: string }) => {
      if (status === 'connected' || this.live === 'refused') return;
      this.live = status === 'disconnected' ? 'offline' : 'connecting';
      this.saves.disconnected();
    };
    const onRefused = ({ reason }: { reason: string }) => {
      this.live = 'refused';
      this.refusal = reason;
      this.saves.refused(reason);
    };
    // The server closes one document when the person's access to it ends (the socket stays up).
    const onClose = ({ event }: { event: { code: number; reason: string } }) => {
      if (event.code === 4403) onRefused({ reason: event.reason || 'access revoked' });
    };
    // The browser knows the network is gone before the socket does.
    const onOffline = () => {
      if (this.live === 'refused') return;
      this.live = 'offline';
      this.saves.disconnected();
    };
    window.addEventListener('offline', onOffline);
    this.#cleanups.push(() => window.removeEventListener('offline', onOffline));
    provider.on('close', onClose);
    this.#cleanups.push(() => provider.off('close', onClose));
    provider.on('synced', onSynced);
    provider.on('status', onStatus);
    provider.on('authenticationFailed', onRefused);
    this.#cleanups.push(() => {
      provider.off('synced', onSynced);
      provider.off('status', onStatus);
      provider.off('authenticationFailed', onRefused);
    });
    if (provider.synced) onSynced();

    const awareness = provider.awareness;
    if (awareness) {
      awareness.setLocalStateField('user', { id: me.userId, name: me.name, color: colourFor(me.userId) } satisfies AwarenessUser);
      const onAwareness = () => {
        const byField: Record<string, FieldPerson[]> = {};
        const cursors: RemoteCursor[] = [];
        awareness.getStates().forEach((state, clientId) => {
          if (clientId === awareness.clientID) return;
          const parsed = awarenessStateSchema.safeParse(state);
          if (!parsed.success) return;
          const { user, cursor } = parsed.data;
          if (user.id === me.userId || !cursor) return;
          const person = { clientId, userId: user.id, name: user.name, colour: user.color };
          byField[cursor.questionId] = [...(byField[cursor.questionId] ?? []), person];
          cursors.push({ ...person, cursor });
        });
        this.people = byField;
        this.cursors = cursors;
        this.#news.heard(byField);
      };
      awareness.on('change', onAwareness);
      this.#cleanups.push(() => awareness.off('change', onAwareness));
    }
  }

  /** Where others' carets and selections are in one text (an answer, or a table cell), as indexes into it now. */
  caretsIn(questionId: string, row?: string, column?: number): RemoteCaret[] {
    void this.answers;
    const doc = this.document.doc;
    const at = (encoded: string | null) => {
      const position = decodePosition(encoded);
      return position ? (Y.createAbsolutePositionFromRelativePosition(position, doc)?.index ?? null) : null;
    };
    return this.cursors.flatMap(({ cursor, ...person }) => {
      if (cursor.questionId !== questionId || cursor.row !== row || cursor.column !== column) return [];
      const anchor = at(cursor.anchor);
      const head = at(cursor.head);
      return anchor === null || head === null ? [] : [{ ...person, anchor, head }];
    });
  }

  /** This person's caret and selection in a text, for everyone else's screen. */
  setCursor(place: { questionId: string; row?: string; column?: number }, text: Y.Text, anchor: number, head: number): void {
    const encode = (index: number) => encodePosition(Y.createRelativePositionFromTypeIndex(text, index));
    this.document.provider.awareness?.setLocalStateField('cursor', { ...place, anchor: encode(anchor), head: encode(head) } satisfies AwarenessCursor);
  }

  /** The latest news of co-editors for screen readers (a polite live region shows it). */
  get news(): string {
    return this.#news.text;
  }

  /** Tells co-editors which question this person is in (null: none); a text's caret comes with `setCursor`. */
  focus(questionId: string | null): void {
    const awareness = this.document.provider.awareness;
    const current = awareness?.getLocalState()?.cursor as AwarenessCursor | null | undefined;
    if (questionId !== null && current?.questionId === questionId) return;
    awareness?.setLocalStateField('cursor', questionId === null ? null : ({ questionId, anchor: null, head: null } satisfies AwarenessCursor));
  }

  setValue(questionId: string, value: Answer): void {
    this.document.doc.transact(() => {
      if (value === null) this.answersMap.delete(questionId);
      else this.answersMap.set(questionId, value);
    });
  }

  /** The table's Y.Map, created with the question's headers the first time someone edits it. */
  #table(question: Question): { rows: Y.Array<Y.Map<unknown>> } {
    let table = this.answersMap.get(question.id);
    if (!(table instanceof Y.Map)) {
      table = new Y.Map<unknown>();
      this.answersMap.set(question.id, table);
      const headers = new Y.Array<string>();
      headers.push((question.columns ?? []).map((column) => column.header));
      (table as Y.Map<unknown>).set('headers', headers);
      (table as Y.Map<unknown>).set('rows', new Y.Array<Y.Map<unknown>>());
    }
    return { rows: (table as Y.Map<unknown>).get('rows') as Y.Array<Y.Map<unknown>> };
  }

  /** One table's rows, each with its stable id: the same entry for the same row every time (a keyed list keeps its fields). */
  tableRows(question: Question): TableRow[] {
    const table = this.answersMap.get(question.id);
    const rows = table instanceof Y.Map ? table.get('rows') : null;
    if (!(rows instanceof Y.Array)) return [];
    return (rows.toArray() as Y.Map<unknown>[]).map((row) => {
      let entry = this.#rowEntries.get(row);
      if (!entry) this.#rowEntries.set(row, (entry = { id: String(row.get(ROW_ID) ?? ''), row }));
      return entry;
    });
  }

  /**
   * This person's changes to a table's rows (added, removed, pasted), undone without touching
   * anyone else's; a cell's typing has its own undo in the cell.
   */
  #tableUndo(question: Question): Y.UndoManager {
    let undo = this.#tableUndos.get(question.id);
    if (!undo) {
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- Y.js's own option, never rendered
      undo = new Y.UndoManager(this.#table(question).rows, { trackedOrigins: new Set([this.#tableOrigin]) });
      this.#tableUndos.set(question.id, undo);
    }
    return undo;
  }

  #tableChange(question: Question, change: (rows: Y.Array<Y.Map<unknown>>) => void): void {
    const undo = this.#tableUndo(question);
    this.document.doc.transact(() => change(this.#table(question).rows), this.#tableOrigin);
    // Each action is its own undo step.
    undo.stopCapturing();
  }

  /** A choice in a table cell: the cell's text replaced whole. */
  setCellChoice(row: Y.Map<unknown>, column: number, value: string): void {
    this.document.doc.transact(() => writeCell(row, column, value), this.#tableOrigin);
  }

  /** Adds an empty row; returns its id (to move focus into it). */
  addRow(question: Question): string | null {
    let id: string | null = null;
    this.#tableChange(question, (rows) => {
      if (rows.length >= TABLE_MAX_ROWS) return;
      const row = newTableRow((question.columns ?? []).map(() => ''));
      rows.push([row]);
      // Read once it is in the document (a Y.Map not yet in one answers nothing).
      id = String(row.get(ROW_ID));
    });
    return id;
  }

  /** Removes a row by its id (wherever others' changes have moved it); returns the position it had, or -1. */
  removeRow(question: Question, rowId: string): number {
    let removed = -1;
    this.#tableChange(question, (rows) => {
      removed = (rows.toArray() as Y.Map<unknown>[]).findIndex((row) => row.get(ROW_ID) === rowId);
      if (removed >= 0) rows.delete(removed, 1);
    });
    return removed;
  }

  /** Takes back this person's last change to the table's rows (a removed row comes back). */
  undoRows(question: Question): void {
    this.#tableUndo(question).undo();
  }

  /** Rows pasted from a spreadsheet, written from the given cell on (new rows as needed, within the limits). */
  pasteRows(question: Question, fromRow: number, fromColumn: number, cells: string[][]): number {
    const width = question.columns?.length ?? 0;
    let written = 0;
    this.#tableChange(question, (rows) => {
      cells.forEach((line, offset) => {
        const index = fromRow + offset;
        if (index >= TABLE_MAX_ROWS) return;
        while (rows.length <= index) rows.push([newTableRow((question.columns ?? []).map(() => ''))]);
        const row = rows.get(index);
        line.slice(0, Math.max(width - fromColumn, 0)).forEach((cell, column) => writeCell(row, fromColumn + column, cell.slice(0, TABLE_CELL_MAX_LENGTH)));
        written++;
      });
    });
    return written;
  }

  /**
   * Closes the document at once (so the same step can open again straight away; its socket stays
   * open for the plan's other steps; what was not stored yet stays in IndexedDB and merges when the
   * step opens again). Returns whether this person changed the step while it was open.
   */
  close(): boolean {
    for (const cleanup of this.#cleanups) cleanup();
    for (const undo of this.#tableUndos.values()) undo.destroy();
    this.focus(null);
    const changed = this.saves.close();
    this.document.destroy();
    return changed;
  }
}
