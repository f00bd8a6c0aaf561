import type { MailWhere } from '@csp/shared/mail';
import type { QuestionBank } from '@csp/shared/questionBank';
import { invalidInput } from '../../errors.ts';

/** Where a thread is: a question (and its step), a step, or the whole plan; and how people name it. */
export interface ThreadAnchor {
  stepKey: string | null;
  questionId: string | null;
  /** The step's 1-based position in the plan's bank (the editor's path). */
  stepNumber: number | null;
  where: MailWhere;
}

/** The start of a long title, cut between words. */
function clip(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, length);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > length / 2 ? cut.slice(0, lastSpace) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/**
 * The anchor of a new thread, checked against the plan's bank: a question names its step (found
 * when only the question is given); an unknown step or question is a 400.
 */
export function anchorOf(bank: QuestionBank, stepKey: string | null | undefined, questionId: string | null | undefined): ThreadAnchor {
  const index =
    questionId && !stepKey
      ? bank.steps.findIndex((step) => step.questions.some((q) => q.id === questionId))
      : bank.steps.findIndex((step) => step.key === stepKey);
  if (!stepKey && !questionId) return { stepKey: null, questionId: null, stepNumber: null, where: { short: 'the plan', full: 'the plan' } };
  const step = bank.steps[index];
  if (!step) throw invalidInput(questionId && !stepKey ? 'Unknown question' : 'Unknown step');
  if (!questionId)
    return { stepKey: step.key, questionId: null, stepNumber: index + 1, where: { short: `step ${index + 1}`, full: `step ${index + 1}, ${step.title}` } };
  const question = step.questions.find((q) => q.id === questionId);
  if (!question) throw invalidInput('Unknown question for this step');
  return {
    stepKey: step.key,
    questionId,
    stepNumber: index + 1,
    where: { short: question.number, full: `${question.number}. ${clip(question.title, 60)}` },
  };
}

/** The anchor of a stored thread; one whose step or question left the bank is shown on the plan. */
export function storedAnchorOf(bank: QuestionBank, stepKey: string | null, questionId: string | null): ThreadAnchor {
  try {
    return anchorOf(bank, stepKey, questionId);
  } catch {
    return anchorOf(bank, null, null);
  }
}

/** The web app's address of a thread: at its step in the editor, or on the plan's page. */
export function threadLink(formId: string, anchor: ThreadAnchor, commentId: string): string {
  return anchor.stepNumber === null ? `/plans/${formId}?thread=${commentId}` : `/plans/${formId}/step/${anchor.stepNumber}?thread=${commentId}`;
}
