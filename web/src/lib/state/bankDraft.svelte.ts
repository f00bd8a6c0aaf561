import type { Step } from '@csp/shared';
import type { AdminBank, AdminBankView, NewQuestion, QuestionChanges } from '@csp/shared/api/questionBankAdmin';
import { questionBankAdmin } from '#lib/api/admin/questionBank.ts';
import { Loader } from './loader.svelte.ts';

/**
 * The question-bank editor's state: the published bank, the draft (null until the first edit,
 * which the server clones from the published bank) and the versions. Edits run one at a time in
 * the order they were made, each against the draft the previous one left; the draft shown is
 * always the server's answer (a move is shown at once and put right if the server refuses it).
 */
export class BankDraft {
  view = $state.raw<AdminBankView | null>(null);
  readonly #reader = new Loader((signal) => questionBankAdmin.view(signal), 'The question bank could not be loaded.');
  /** Why the bank could not be read. */
  readonly failure = $derived.by(() => this.#reader.error);
  /** What the last move or save did, for the polite status line. */
  announcement = $state('');

  /** The bank the editor shows: the draft, else the published bank its first edit will start from. */
  readonly bank = $derived<AdminBank | null>(this.view?.draft ?? this.view?.published ?? null);
  readonly draftVersion = $derived(this.view?.draft?.version ?? null);

  #queue: Promise<unknown> = Promise.resolve();
  #edits = 0;
  #pending = 0;

  async load(): Promise<void> {
    const edits = this.#edits;
    const view = await this.#reader.load();
    // An edit made while this read was under way has the newer draft.
    if (view && edits === this.#edits) this.view = view;
  }

  readonly retry = (): void => void this.load();

  destroy(): void {
    this.#reader.abort();
  }

  step(key: string): Step | undefined {
    return this.bank?.steps.find((step) => step.key === key);
  }

  /** Runs one edit after the ones before it; the draft it answers with replaces the one shown. */
  #edit(work: () => Promise<AdminBank>): Promise<AdminBank> {
    this.#pending++;
    const run = this.#queue.then(async () => {
      this.#edits++;
      try {
        const draft = await work();
        // A later edit already waiting shows its own answer (the moves it makes are on screen already).
        if (this.#pending === 1) {
          const firstEdit = !this.view?.versions.some((version) => version.version === draft.version);
          if (this.view) this.view = { ...this.view, draft };
          if (firstEdit) await this.load();
        }
        return draft;
      } finally {
        this.#pending--;
      }
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  updateQuestion(questionId: string, changes: QuestionChanges) {
    return this.#edit(() => questionBankAdmin.updateQuestion(questionId, changes));
  }

  /** Adds a question at the end of the step; resolves with its new id. */
  async addQuestion(stepKey: string, question: NewQuestion): Promise<string> {
    const before = this.step(stepKey)?.questions.map((candidate) => candidate.id) ?? [];
    const draft = await this.#edit(() => questionBankAdmin.addQuestion(stepKey, question));
    const added = draft.steps.find((step) => step.key === stepKey)?.questions.find((candidate) => !before.includes(candidate.id));
    return added?.id ?? '';
  }

  setActive(questionId: string, active: boolean) {
    return this.#edit(() => questionBankAdmin.setActive(questionId, active));
  }

  updateStep(stepKey: string, changes: { title?: string; intro?: string }) {
    return this.#edit(() => questionBankAdmin.updateStep(stepKey, changes));
  }

  addStep(key: string, title: string, intro: string) {
    return this.#edit(() => questionBankAdmin.addStep(key, title, intro));
  }

  /**
   * Moves a question to `to` (0-based) in its step: shown at once and announced, then saved; a
   * refused move reloads the draft and throws the server's reason.
   */
  async move(stepKey: string, questionId: string, to: number): Promise<void> {
    const step = this.step(stepKey);
    const bank = this.bank;
    if (!step || !bank || !this.view) return;
    const from = step.questions.findIndex((question) => question.id === questionId);
    const target = Math.max(0, Math.min(step.questions.length - 1, to));
    if (from === -1 || from === target) return;
    const questions = [...step.questions];
    const [moved] = questions.splice(from, 1);
    questions.splice(target, 0, moved!);
    // Before the first edit the server clones the published bank as the version after the latest.
    const version = this.view.draft ? bank.version : Math.max(0, ...this.view.versions.map((candidate) => candidate.version)) + 1;
    const shown = { version, steps: bank.steps.map((candidate) => (candidate.key === stepKey ? { ...candidate, questions } : candidate)) };
    this.view = { ...this.view, draft: shown };
    this.announcement = `Moved ${moved!.number}. ${moved!.title} to position ${target + 1} of ${questions.length}.`;
    const order = questions.map((question) => question.id);
    try {
      await this.#edit(() => questionBankAdmin.reorder(stepKey, order));
    } catch (error) {
      await this.load();
      this.announcement = 'The move was not saved.';
      throw error;
    }
  }

  async discard(): Promise<void> {
    this.#edits++;
    await questionBankAdmin.discard();
    await this.load();
  }

  async publish(schoolYear: string | null): Promise<number> {
    this.#edits++;
    const { version } = await questionBankAdmin.publish(schoolYear);
    await this.load();
    return version;
  }
}
