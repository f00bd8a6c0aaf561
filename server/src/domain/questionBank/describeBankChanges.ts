import { isActive, sameQuestion, type Question, type QuestionBank } from '@csp/shared';

/** What a draft changes against the published bank, for the editor's summary. */
export function describeBankChanges(published: QuestionBank | null, draft: QuestionBank | null) {
  const before = new Map<string, { stepKey: string; question: Question }>();
  for (const step of published?.steps ?? []) for (const question of step.questions) before.set(question.id, { stepKey: step.key, question });
  const summary = {
    addedQuestions: [] as string[],
    changedQuestions: [] as string[],
    deactivatedQuestions: [] as string[],
    addedSteps: [] as string[],
    changedSteps: [] as string[],
    reorderedSteps: [] as string[],
  };
  if (!draft) return summary;
  for (const step of draft.steps) {
    const old = published?.steps.find((candidate) => candidate.key === step.key);
    if (!old) summary.addedSteps.push(step.key);
    else {
      if (old.title !== step.title || old.intro !== step.intro) summary.changedSteps.push(step.key);
      const oldOrder = old.questions.map((q) => q.id).filter((id) => step.questions.some((q) => q.id === id));
      const newOrder = step.questions.map((q) => q.id).filter((id) => old.questions.some((q) => q.id === id));
      if (oldOrder.join() !== newOrder.join()) summary.reorderedSteps.push(step.key);
    }
    for (const question of step.questions) {
      const previous = before.get(question.id);
      if (!previous) summary.addedQuestions.push(question.id);
      else if (isActive(previous.question) && !isActive(question)) summary.deactivatedQuestions.push(question.id);
      else if (!sameQuestion(previous.question, question) || previous.question.help !== question.help || previous.question.number !== question.number) {
        summary.changedQuestions.push(question.id);
      }
    }
  }
  return summary;
}
