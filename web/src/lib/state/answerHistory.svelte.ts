import type { AnswerRevision, RestoreResponse } from '@csp/shared/api/history';
import { api, ApiError } from '#lib/api/index.ts';

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
  status = $state<'loading' | 'ready' | 'error'>('loading');
  error = $state('');
  loadingOlder = $state(false);
  readonly hasOlder = $derived(this.revisions.length < this.total);

  #page = 0;
  #controller = new AbortController();
  readonly #formId: string;
  readonly #filter: HistoryFilter;
  readonly #limit: number;

  constructor(formId: string, filter: HistoryFilter, limit = 20) {
    this.#formId = formId;
    this.#filter = filter;
    this.#limit = limit;
  }

  /** The newest page, replacing what was shown (first open, Try again, after a restore). */
  async load(): Promise<void> {
    this.#controller.abort();
    this.#controller = new AbortController();
    const { signal } = this.#controller;
    if (this.status !== 'ready') this.status = 'loading';
    this.error = '';
    try {
      const answer = await api.history(this.#formId, { ...this.#filter, page: 1, limit: this.#limit }, signal);
      this.revisions = answer.revisions;
      this.total = answer.total;
      this.#page = 1;
      this.status = 'ready';
    } catch (cause) {
      if (signal.aborted) return;
      this.error = cause instanceof ApiError ? cause.message : 'The history could not be loaded.';
      this.status = 'error';
    }
  }

  /** The next older page, added below. */
  async loadOlder(): Promise<void> {
    if (this.loadingOlder || !this.hasOlder) return;
    const { signal } = this.#controller;
    this.loadingOlder = true;
    try {
      const answer = await api.history(this.#formId, { ...this.#filter, page: this.#page + 1, limit: this.#limit }, signal);
      // Changes made since the first page push entries down a page: never show one twice.
      const shown = this.revisions;
      this.revisions = [...shown, ...answer.revisions.filter((revision) => !shown.some((other) => other._id === revision._id))];
      this.total = answer.total;
      this.#page += 1;
    } catch (cause) {
      if (!signal.aborted) this.error = cause instanceof ApiError ? cause.message : 'Older changes could not be loaded.';
    } finally {
      this.loadingOlder = false;
    }
  }

  /** Puts the answer back as it was after (or before) `revision`; the list is read again. */
  async restore(revision: AnswerRevision, to: 'after' | 'before'): Promise<RestoreResponse> {
    const result = await api.restoreRevision(this.#formId, revision._id, to);
    void this.load();
    return result;
  }

  destroy(): void {
    this.#controller.abort();
  }
}
