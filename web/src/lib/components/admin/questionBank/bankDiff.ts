import type { Question, Step } from '@csp/shared';
import { TYPE_LABELS } from './questionForm.ts';

export interface FieldChange {
  label: string;
  before: string;
  after: string;
}

export type QuestionChange =
  | { kind: 'added' | 'removed'; question: Question; fields: FieldChange[] }
  | { kind: 'changed' | 'deactivated' | 'reactivated'; question: Question; fields: FieldChange[] };

export interface StepDiff {
  key: string;
  title: string;
  added: boolean;
  fields: FieldChange[];
  /** The step's questions (number and title) before and after, when the draft moves any. */
  order: { before: string[]; after: string[] } | null;
  questions: QuestionChange[];
}

interface BankLike {
  steps: Step[];
}

const yesNo = (value: boolean | undefined) => (value ? 'Yes' : 'No');
const none = '(none)';

function describe(question: Question, bank: BankLike): Record<string, string> {
  const condition = question.visibleWhen;
  const source = condition ? bank.steps.flatMap((step) => step.questions).find((candidate) => candidate.id === condition.questionId) : undefined;
  return {
    Number: question.number,
    Title: question.title,
    Type: TYPE_LABELS[question.type],
    Required: yesNo(question.required),
    'Help text': question.help || none,
    Placeholder: question.placeholder || none,
    Options: question.options?.map((option) => `${option.label} (${option.value})`).join('; ') || none,
    'Table columns':
      question.columns
        ?.map((column) => (column.type === 'select' ? `${column.header} (choose from ${column.options?.join(', ')})` : column.header))
        .join('; ') || none,
    'Hides the rest of the step until answered yes': yesNo(question.gatesFollowing),
    'Shown only when': condition
      ? `${source ? `${source.number}. ${source.title}` : condition.questionId} is ${typeof condition.equals === 'boolean' ? yesNo(condition.equals) : `“${condition.equals}”`}`
      : 'Always shown',
    'Review yearly (same as last year flag)': yesNo(question.reviewYearly),
    Active: yesNo(question.active !== false),
  };
}

function fieldChanges(before: Record<string, string>, after: Record<string, string>, skip: string[] = []): FieldChange[] {
  return Object.keys(after)
    .filter((label) => !skip.includes(label) && before[label] !== after[label])
    .map((label) => ({ label, before: before[label] ?? none, after: after[label]! }));
}

const label = (question: Question) => `${question.number}. ${question.title}`;

/** What the draft changes against the published bank, step by step (steps without changes left out). */
export function diffBanks(published: BankLike | null, draft: BankLike): StepDiff[] {
  const before = published ?? { steps: [] };
  const diffs: StepDiff[] = [];
  for (const step of draft.steps) {
    const old = before.steps.find((candidate) => candidate.key === step.key);
    const diff: StepDiff = { key: step.key, title: step.title, added: !old, fields: [], order: null, questions: [] };
    if (old) {
      if (old.title !== step.title) diff.fields.push({ label: 'Step title', before: old.title, after: step.title });
      if (old.intro !== step.intro) diff.fields.push({ label: 'Introduction', before: old.intro || none, after: step.intro || none });
      const kept = (from: Step, other: Step) => from.questions.filter((question) => other.questions.some((candidate) => candidate.id === question.id));
      const oldOrder = kept(old, step).map((question) => question.id);
      const newOrder = kept(step, old);
      if (oldOrder.join() !== newOrder.map((question) => question.id).join()) {
        diff.order = { before: kept(old, step).map(label), after: newOrder.map(label) };
      }
      for (const question of old.questions) {
        if (!step.questions.some((candidate) => candidate.id === question.id)) diff.questions.push({ kind: 'removed', question, fields: [] });
      }
    }
    for (const question of step.questions) {
      const previous = before.steps.flatMap((candidate) => candidate.questions).find((candidate) => candidate.id === question.id);
      if (!previous) {
        diff.questions.push({ kind: 'added', question, fields: [] });
        continue;
      }
      const fields = fieldChanges(describe(previous, before), describe(question, draft), ['Active']);
      const wasActive = previous.active !== false;
      const isActive = question.active !== false;
      if (wasActive && !isActive) diff.questions.push({ kind: 'deactivated', question, fields });
      else if (!wasActive && isActive) diff.questions.push({ kind: 'reactivated', question, fields });
      else if (fields.length) diff.questions.push({ kind: 'changed', question, fields });
    }
    if (diff.added || diff.fields.length || diff.order || diff.questions.length) diffs.push(diff);
  }
  return diffs;
}

/** The number of changes a diff lists, for a summary line. */
export const changeCount = (diffs: StepDiff[]) =>
  diffs.reduce((sum, diff) => sum + (diff.added ? 1 : 0) + diff.fields.length + (diff.order ? 1 : 0) + diff.questions.length, 0);
