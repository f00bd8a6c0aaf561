import type { AnswerRevision, HistoryResponse, RestoreResponse } from '@csp/shared/api/history';
import { api } from '#lib/api/index.ts';
import { Loader } from './loader.svelte.ts';

export interface HistoryFilter {
  stepKey: string;
  /** One answer's history; unset: the whole step's. */
  questionId?: string;
}

/**
 * The changes of one answer or one step, newest first, read a page at a time ("Show older").
 * Read when the panel opens and again after a restore; it does not follow live edits.
 */
export class AnswerHistory {
  revisions = $state.raw<AnswerRevision[]>([]);
  total = $state(0);
  readonly hasOlder = $derived(this.revisions.length < this.total);
  readonly status = $derived.by(() => (this.#newest.error ? 'error' : this.#newest.value ? 'ready' : 'loading'));
  /** Why the newest page, or an older one, could not be read. */
  readonly error = $derived.by(() => this.#newest.error || this.#older.error);
  readonly loadingOlder = $derived.by(() => this.#older.loading);

  #page = 0;
  readonly #formId: string;
  readonly #newest: Loader<HistoryResponse>;
  readonly #older: Loader<HistoryResponse>;

  constructor(formId: string, filter: HistoryFilter, limit = 20) {
    this.#formId = formId;
    this.#newest = new Loader((signal) => api.history(formId, { ...filter, page: 1, limit }, signal), 'The history could not be loaded.');
    this.#older = new Loader((signal) => api.history(formId, { ...filter, page: this.#page + 1, limit }, signal), 'Older changes could not be loaded.');
  }

  /** The newest page, replacing what was shown (first open, Try again, after a restore). */
  async load(): Promise<void> {
    this.#older.abort();
    const answer = await this.#newest.load();
    if (!answer) return;
    this.revisions = answer.revisions;
    this.total = answer.total;
    this.#page = 1;
  }

  readonly retry = (): void => void this.load();

  /** The next older page, added below. */
  async loadOlder(): Promise<void> {
    if (this.#older.loading || !this.hasOlder) return;
    const answer = await this.#older.load();
    if (!answer) return;
    // Changes made since the first page push entries down a page: never show one twice.
    const shown = this.revisions;
    this.revisions = [...shown, ...answer.revisions.filter((revision) => !shown.some((other) => other._id === revision._id))];
    this.total = answer.total;
    this.#page += 1;
  }

  /** Puts the answer back as it was after (or before) `revision`; the list is read again. */
  async restore(revision: AnswerRevision, to: 'after' | 'before'): Promise<RestoreResponse> {
    const result = await api.restoreRevision(this.#formId, revision._id, to);
    void this.load();
    return result;
  }

  destroy(): void {
    this.#newest.abort();
    this.#older.abort();
  }
}
