import type { Step } from '@csp/shared';
import type { FieldPerson } from './stepEditor.svelte.ts';

/** At most one announcement this often: a screen reader is told where people went, not every move. */
const QUIET_MS = 5_000;

/**
 * What a screen reader hears of co-editors on a step: "Marcus Bell is in question 3", when someone
 * moves into a question, rate-limited (changes within the quiet time are told together, once).
 */
export class CoEditorNews {
  text = $state('');
  readonly #step: Step;
  /** Where each person was last told to be (client id → question id); never rendered. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  #told = new Map<number, string>();
  #pending: Record<string, FieldPerson[]> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastAt = 0;

  constructor(step: Step) {
    this.#step = step;
  }

  heard(byField: Record<string, FieldPerson[]>): void {
    this.#pending = byField;
    if (this.#timer) return;
    const wait = Math.max(0, this.#lastAt + QUIET_MS - Date.now());
    this.#timer = setTimeout(() => this.#tell(), wait);
  }

  #tell(): void {
    this.#timer = null;
    const byField = this.#pending ?? {};
    this.#pending = null;
    const moves: string[] = [];
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- replaces #told, never rendered
    const now = new Map<number, string>();
    for (const [questionId, people] of Object.entries(byField)) {
      const number = this.#step.questions.find((question) => question.id === questionId)?.number;
      for (const person of people) {
        now.set(person.clientId, questionId);
        if (this.#told.get(person.clientId) !== questionId && number) moves.push(`${person.name} is in question ${number}`);
      }
    }
    this.#told = now;
    if (moves.length === 0) return;
    this.text = `${moves.join('. ')}.`;
    this.#lastAt = Date.now();
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
  }
}
