/**
 * The bundled question bank's steps and questions, found by step number (1-based, as the routes
 * number them) or step key, and a valid answer for any question.
 */
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { Answer, Question, Step } from '@csp/shared';

/** A step by its 1-based number or by its key. */
export type StepRef = number | string;

/** The 1-based number of a step (given by number or key); fails for a step the bank does not have. */
export function stepNumberOf(step: StepRef): number {
  const index = typeof step === 'number' ? step - 1 : BUNDLED_BANK.steps.findIndex((candidate) => candidate.key === step);
  if (!BUNDLED_BANK.steps[index]) throw new Error(`no step ${step} in the bundled bank`);
  return index + 1;
}

/** A step of the bundled bank by its 1-based number. */
export function stepAt(stepNumber: number): Step {
  const step = BUNDLED_BANK.steps[stepNumber - 1];
  if (!step) throw new Error(`no step ${stepNumber} in the bundled bank`);
  return step;
}

/** A step of the bundled bank by its key, with its number. */
export function stepOf(stepKey: string): { step: Step; stepNumber: number } {
  const stepNumber = stepNumberOf(stepKey);
  return { step: stepAt(stepNumber), stepNumber };
}

export function question(stepNumber: number, id: string): Question {
  const found = stepAt(stepNumber).questions.find((q) => q.id === id);
  if (!found) throw new Error(`no question ${id} in step ${stepNumber}`);
  return found;
}

export function questionsOfType(stepNumber: number, ...types: Question['type'][]): Question[] {
  return stepAt(stepNumber).questions.filter((q) => types.includes(q.type));
}

/** A valid, non-empty answer for a question; `variant` makes different values of the same question. */
export function validAnswer(q: Question, variant = 0): Answer {
  switch (q.type) {
    case 'text':
    case 'textarea':
      return `${q.id} answer ${variant}`;
    case 'yesno':
      return variant % 2 === 0;
    case 'checkbox':
      return true;
    case 'select': {
      const options = q.options ?? [];
      return options[variant % options.length]!.value;
    }
    case 'table': {
      const headers = (q.columns ?? []).map((column) => column.header);
      return { headers, rows: [headers.map((header) => `${header} ${variant}`)] };
    }
  }
}
