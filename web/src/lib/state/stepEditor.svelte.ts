import * as Y from 'yjs';
import { ANSWERS_MAP, TABLE_CELL_MAX_LENGTH, TABLE_MAX_ROWS, readAnswers, type Answer, type Question, type Step, type StepAnswers } from '@csp/shared';
import type { StepDocument } from '#lib/realtime/collab.ts';
import { colourFor } from './presence.svelte.ts';
import { SaveTracker } from './saveTracker.svelte.ts';
import type { PlanState } from './plan.svelte.ts';

export interface FieldPerson {
  clientId: number;
  userId: string;
  name: string;
  colour: string;
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

  readonly #cleanups: (() => void)[] = [];

  constructor(plan: PlanState, step: Step, stepNumber: number, me: { userId: string; name: string }) {
    this.step = step;
    this.stepNumber = stepNumber;
    this.document = plan.collab.open(plan.id, step.key);
    const { doc, provider } = this.document;
    this.answersMap = doc.getMap(ANSWERS_MAP);
    this.saves = new SaveTracker(this.document);

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
      if (!this.serverReadOnly && plan.views[stepNumber - 1]?.canEdit) this.#prepareAnswers();
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
      awareness.setLocalStateField('user', { userId: me.userId, name: me.name, colour: colourFor(me.userId) });
      const onAwareness = () => {
        const byField: Record<string, FieldPerson[]> = {};
        awareness.getStates().forEach((state, clientId) => {
          if (clientId === awareness.clientID) return;
          const user = state.user as { userId: string; name: string; colour: string } | undefined;
          const field = state.field as string | undefined;
          if (!user || !field || user.userId === me.userId) return;
          byField[field] = [...(byField[field] ?? []), { clientId, userId: user.userId, name: user.name, colour: user.colour }];
        });
        this.people = byField;
      };
      awareness.on('change', onAwareness);
      this.#cleanups.push(() => awareness.off('change', onAwareness));
    }
  }

  /**
   * Gives every text answer its Y.Text and every table its map as soon as the document is synced,
   * before anyone types: two people whose first edits each created them would otherwise race (Y.js
   * keeps one of two concurrent map entries). Empty ones are blank answers: never saved.
   */
  #prepareAnswers(): void {
    const missing = this.step.questions.filter((question) => {
      const value = this.answersMap.get(question.id);
      if (question.type === 'text' || question.type === 'textarea') return !(value instanceof Y.Text);
      return question.type === 'table' && !(value instanceof Y.Map);
    });
    if (missing.length === 0) return;
    this.document.doc.transact(() => {
      for (const question of missing) {
        if (this.answersMap.has(question.id)) continue;
        if (question.type === 'table') this.#table(question);
        else this.answersMap.set(question.id, new Y.Text());
      }
    });
  }

  /** Tells co-editors which question this person is in (null: none). */
  focus(questionId: string | null): void {
    this.document.provider.awareness?.setLocalStateField('field', questionId);
  }

  setValue(questionId: string, value: Answer): void {
    this.document.doc.transact(() => {
      if (value === null) this.answersMap.delete(questionId);
      else this.answersMap.set(questionId, value);
    });
  }

  /** The table's Y.Map, created with the question's headers the first time someone edits it. */
  #table(question: Question): { rows: Y.Array<Y.Map<string>> } {
    let table = this.answersMap.get(question.id);
    if (!(table instanceof Y.Map)) {
      table = new Y.Map<unknown>();
      this.answersMap.set(question.id, table);
      const headers = new Y.Array<string>();
      headers.push((question.columns ?? []).map((column) => column.header));
      (table as Y.Map<unknown>).set('headers', headers);
      (table as Y.Map<unknown>).set('rows', new Y.Array<Y.Map<string>>());
    }
    return { rows: (table as Y.Map<unknown>).get('rows') as Y.Array<Y.Map<string>> };
  }

  setCell(question: Question, row: number, column: number, value: string): void {
    this.document.doc.transact(() => {
      const { rows } = this.#table(question);
      while (rows.length <= row && rows.length < TABLE_MAX_ROWS) rows.push([new Y.Map<string>()]);
      rows.get(row)?.set(String(column), value);
    });
  }

  addRow(question: Question): void {
    this.document.doc.transact(() => {
      const { rows } = this.#table(question);
      if (rows.length < TABLE_MAX_ROWS) rows.push([new Y.Map<string>()]);
    });
  }

  removeRow(question: Question, row: number): void {
    this.document.doc.transact(() => {
      const { rows } = this.#table(question);
      if (row < rows.length) rows.delete(row, 1);
    });
  }

  /** Rows pasted from a spreadsheet, written from the given cell on (new rows as needed, within the limits). */
  pasteRows(question: Question, fromRow: number, fromColumn: number, cells: string[][]): number {
    const width = question.columns?.length ?? 0;
    let written = 0;
    this.document.doc.transact(() => {
      const { rows } = this.#table(question);
      cells.forEach((line, offset) => {
        const index = fromRow + offset;
        if (index >= TABLE_MAX_ROWS) return;
        while (rows.length <= index) rows.push([new Y.Map<string>()]);
        const row = rows.get(index);
        line.slice(0, Math.max(width - fromColumn, 0)).forEach((cell, column) => row.set(String(fromColumn + column), cell.slice(0, TABLE_CELL_MAX_LENGTH)));
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
    this.focus(null);
    const changed = this.saves.close();
    this.document.destroy();
    return changed;
  }
}
