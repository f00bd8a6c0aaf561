import { NEEDS_UPDATE_LABELS, type NeedsUpdateFlag, type NeedsUpdateReason } from './records.ts';
import type { Question, QuestionBank, StepAnswers } from './questionBank.ts';
import { isActive, isAnswered } from './answers.ts';

/** Same title, type, required flag, options and columns: a copied answer still fits. */
export function sameQuestion(a: Question, b: Question): boolean {
  return (
    a.title === b.title &&
    a.type === b.type &&
    a.required === b.required &&
    JSON.stringify(a.options ?? null) === JSON.stringify(b.options ?? null) &&
    JSON.stringify(a.columns ?? null) === JSON.stringify(b.columns ?? null)
  );
}

/**
 * Review flags for a plan copied from a plan on `sourceBank` into a year on `targetBank`:
 * `new` for a question the source bank did not have (every question when the source has no bank),
 * `changed` for a copied answer whose question's title, type, options or required changed, and
 * `revisit` for a copied answer to an unchanged question about people, dates, schedules or targets.
 */
export function computeNeedsUpdate(sourceBank: QuestionBank | null, targetBank: QuestionBank, answersByStep: Record<string, StepAnswers>): NeedsUpdateFlag[] {
  const sourceQuestions = new Map<string, Question>();
  for (const step of sourceBank?.steps ?? []) for (const question of step.questions) sourceQuestions.set(question.id, question);
  const flags: NeedsUpdateFlag[] = [];
  const flag = (stepKey: string, questionId: string, reason: NeedsUpdateReason) =>
    flags.push({ stepKey, questionId, reason, label: NEEDS_UPDATE_LABELS[reason] });

  for (const step of targetBank.steps) {
    for (const question of step.questions) {
      if (!isActive(question)) continue;
      const before = sourceQuestions.get(question.id);
      if (!before) {
        flag(step.key, question.id, 'new');
        continue;
      }
      if (!isAnswered(before, answersByStep[step.key]?.[question.id])) continue;
      if (!sameQuestion(before, question)) flag(step.key, question.id, 'changed');
      else if (question.reviewYearly) flag(step.key, question.id, 'revisit');
    }
  }
  return flags;
}
