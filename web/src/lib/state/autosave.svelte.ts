import * as Y from 'yjs';
import { isBlankAnswer, readAnswers, sameAnswer, type Answer, type Step, type StepAnswers } from '@csp/shared';
import { lockedErrorSchema, type Person } from '@csp/shared/api/forms';
import { api, ApiError } from '#lib/api/index.ts';
import type { PlanState } from './plan.svelte.ts';

const AUTOSAVE_DELAY_MS = 3_000;

export type SaveStatus =
  | { kind: 'idle' }
  | { kind: 'pending' }
  | { kind: 'saving' }
  | { kind: 'saved'; at: number; warning?: string }
  | { kind: 'offline' }
  | { kind: 'locked'; by: Person; until: number | null }
  | { kind: 'waiting'; reason: string; until: number }
  | { kind: 'error'; message: string };

const same = (a: Answer | undefined, b: Answer | undefined) => sameAnswer(a, b) || (isBlankAnswer(a) && isBlankAnswer(b));

export interface AutosaveOptions {
  plan: PlanState;
  stepNumber: number;
  step: Step;
  doc: Y.Doc;
  /** True while the step's live document is connected and synced with the server. */
  isLive: () => boolean;
}

/**
 * Saves one step's live document through the step-save route (the store of record) about every
 * 3 s while it changes. What is sent is every answer where the merged live document differs from
 * the stored record, so the record always catches up with what everyone typed; an answer nobody
 * changed is never sent, so nothing is overwritten that the document does not already hold.
 * Saves go out only while the document is synced (its CRDT has merged everyone's edits); offline
 * edits stay in the browser (IndexedDB) and are saved once it reconnects. A refused save is
 * handled as its answer says: 423 waits for the lock, 429 for Retry-After, 409 retries on the
 * record, 401/403/400 stop and say why; none of them overwrites anyone's words.
 */
export class StepAutosave {
  status = $state<SaveStatus>({ kind: 'idle' });
  readonly #options: AutosaveOptions;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #inFlight: Promise<void> | null = null;
  #closed = false;
  /** Answers the server refused as invalid: left out of later saves, so the rest of the step still saves. */
  // Never rendered (the status says which answer): a plain Set on purpose.
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #invalid = new Set<string>();
  #failures = 0;
  /** A save of this step went through since it opened: the step lock may be this person's. */
  #savedOnce = false;

  constructor(options: AutosaveOptions) {
    this.#options = options;
    options.doc.on('update', this.#onUpdate);
    window.addEventListener('online', this.#onOnline);
  }

  /** Answers of the live document (or of a snapshot of it) that the record does not hold yet. */
  dirty(answers: StepAnswers = readAnswers(this.#options.doc)): StepAnswers {
    const { plan, step } = this.#options;
    const stored = plan.stored[step.key]?.data ?? {};
    const dirty: StepAnswers = {};
    for (const question of step.questions) {
      if (this.#invalid.has(question.id)) continue;
      if (!same(answers[question.id], stored[question.id])) dirty[question.id] = answers[question.id] ?? null;
    }
    return dirty;
  }

  get hasUnsavedWork(): boolean {
    return this.#inFlight !== null || Object.keys(this.dirty()).length > 0;
  }

  /** The live document (re)connected: save what waited. */
  connected(): void {
    if (this.status.kind === 'offline' || Object.keys(this.dirty()).length > 0) this.schedule(0);
  }

  disconnected(): void {
    if (Object.keys(this.dirty()).length > 0) this.status = { kind: 'offline' };
  }

  #onUpdate = () => {
    if (this.#closed || this.#options.plan.views[this.#options.stepNumber - 1]?.canEdit === false) return;
    if (Object.keys(this.dirty()).length === 0) return;
    if (this.status.kind === 'saved' || this.status.kind === 'idle') this.status = { kind: 'pending' };
    // About every 3 s while typing goes on (not 3 s after it stops): co-editors' records stay close.
    if (!this.#timer && !this.#inFlight) this.schedule(AUTOSAVE_DELAY_MS);
  };

  #onOnline = () => this.connected();

  schedule(delayMs: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, delayMs);
  }

  /** Saves now (one save at a time; changes made meanwhile go in the next). */
  async flush(): Promise<void> {
    if (this.#inFlight) return this.#inFlight;
    this.#inFlight = this.#save().finally(() => (this.#inFlight = null));
    await this.#inFlight;
  }

  async #save(snapshot?: StepAnswers): Promise<void> {
    const { plan, stepNumber, isLive } = this.#options;
    const dirty = this.dirty(snapshot);
    if (Object.keys(dirty).length === 0) {
      if (this.status.kind === 'pending' || this.status.kind === 'offline') this.status = { kind: 'saved', at: Date.now() };
      return;
    }
    if (!isLive()) {
      this.status = { kind: 'offline' };
      return;
    }
    this.status = { kind: 'saving' };
    try {
      const response = await api.saveStep(plan.id, stepNumber, { data: dirty, mergeStrategy: 'last-write-wins' });
      plan.applySaved(response);
      this.#savedOnce = true;
      this.#failures = 0;
      // Typed during the save, or merged in from others: the next save follows.
      if (!this.#closed && Object.keys(this.dirty()).length > 0) {
        this.status = { kind: 'pending' };
        this.schedule(AUTOSAVE_DELAY_MS);
      } else {
        this.status = { kind: 'saved', at: Date.now(), ...(response.warning ? { warning: response.warning } : {}) };
      }
    } catch (error) {
      this.#refused(error);
    }
  }

  #refused(error: unknown): void {
    if (!(error instanceof ApiError)) {
      this.status = { kind: 'error', message: 'Something went wrong while saving. Your changes are kept in this browser.' };
      return;
    }
    const later = (seconds: number) => {
      if (!this.#closed) this.schedule(seconds * 1000);
      return Date.now() + seconds * 1000;
    };
    // The REST call failed while the live document may still be connected, or the server failed:
    // try again, waiting longer each time (5 s, 10 s … 60 s).
    const backoff = () => Math.min(5 * 2 ** this.#failures++, 60);
    if (error.offline) {
      this.status = { kind: 'offline' };
      later(backoff());
      return;
    }
    if (error.status >= 500) {
      this.status = { kind: 'waiting', reason: 'The server could not save just now', until: later(backoff()) };
      return;
    }
    switch (error.status) {
      case 423: {
        const locked = lockedErrorSchema.safeParse(error.body);
        const until = locked.success ? Date.parse(locked.data.expiresAt) : null;
        const wait = until ? Math.min(Math.max((until - Date.now()) / 1000, 5), 30) : 15;
        later(wait);
        this.status = locked.success ? { kind: 'locked', by: locked.data.lockedBy, until } : { kind: 'error', message: error.message };
        return;
      }
      case 429: {
        const seconds = error.retryAfter ?? 30;
        this.status = { kind: 'waiting', reason: 'Too many saves in a minute', until: later(seconds) };
        return;
      }
      case 409:
        this.status = { kind: 'waiting', reason: 'Others saved this step at the same moment', until: later(2) };
        return;
      case 401:
        this.status = { kind: 'error', message: 'Your session has ended. Sign in again; your changes are kept in this browser.' };
        return;
      case 403:
        this.status = { kind: 'error', message: 'You can no longer change this step. Your changes are kept in this browser.' };
        return;
      case 400: {
        // One answer the server refuses must not hold back the others: it is left out from now on.
        const questionId = /Invalid answer for (\S+):/.exec(error.message)?.[1];
        const question = this.#options.step.questions.find((candidate) => candidate.id === questionId);
        if (question) {
          this.#invalid.add(question.id);
          later(0);
        }
        this.status = { kind: 'error', message: question ? `answer ${question.number} was refused (${error.message})` : error.message };
        return;
      }
      default:
        this.status = { kind: 'error', message: error.message };
    }
  }

  /**
   * Leaving the step: stops at once (no timer fires later), lets a save in flight finish, then saves
   * what the final snapshot of the document holds that the record does not (when it was live).
   * Resolves with whether any save of the step went through while it was open (then the step lock
   * may be this person's, taken perhaps by that last save).
   */
  async close(finalAnswers: StepAnswers, wasLive: boolean): Promise<boolean> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#options.doc.off('update', this.#onUpdate);
    window.removeEventListener('online', this.#onOnline);
    await this.#inFlight?.catch(() => {});
    if (wasLive && Object.keys(this.dirty(finalAnswers)).length > 0) await this.#save(finalAnswers).catch(() => {});
    return this.#savedOnce;
  }
}
