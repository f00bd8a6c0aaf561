import { QUESTION_TYPES, type Question, type QuestionType, type Step } from '@csp/shared';
import type { NewQuestion, QuestionChanges } from '@csp/shared/api/questionBankAdmin';

/** The question editor's form: plain strings and flags, turned into the bank's fields on save. */
export interface QuestionForm {
  number: string;
  title: string;
  type: QuestionType;
  required: boolean;
  help: string;
  placeholder: string;
  options: { value: string; label: string }[];
  columns: { header: string; type: 'text' | 'select'; options: string }[];
  gatesFollowing: boolean;
  /** '' when the question is always shown. */
  conditionQuestionId: string;
  /** 'true' / 'false' for yes/no and checkbox questions, else the answer text or option value. */
  conditionEquals: string;
  reviewYearly: boolean;
}

export const TYPE_LABELS: Record<QuestionType, string> = {
  text: 'Short text',
  textarea: 'Long text',
  checkbox: 'Checkbox',
  yesno: 'Yes / No',
  select: 'Drop-down list',
  table: 'Table',
};
export const TYPES = QUESTION_TYPES;

export const canGate = (type: QuestionType) => type === 'yesno' || type === 'checkbox';
const hasPlaceholder = (type: QuestionType) => type === 'text' || type === 'textarea';

export function emptyForm(number = ''): QuestionForm {
  return {
    number,
    title: '',
    type: 'text',
    required: false,
    help: '',
    placeholder: '',
    options: [
      { value: '', label: '' },
      { value: '', label: '' },
    ],
    columns: [{ header: '', type: 'text', options: '' }],
    gatesFollowing: false,
    conditionQuestionId: '',
    conditionEquals: 'true',
    reviewYearly: false,
  };
}

export function formOf(question: Question): QuestionForm {
  const blank = emptyForm();
  return {
    number: question.number,
    title: question.title,
    type: question.type,
    required: question.required,
    help: question.help ?? '',
    placeholder: question.placeholder ?? '',
    options: question.options?.map((option) => ({ ...option })) ?? blank.options,
    columns: question.columns?.map((column) => ({ header: column.header, type: column.type, options: (column.options ?? []).join(', ') })) ?? blank.columns,
    gatesFollowing: question.gatesFollowing === true,
    conditionQuestionId: question.visibleWhen?.questionId ?? '',
    conditionEquals: question.visibleWhen ? String(question.visibleWhen.equals) : 'true',
    reviewYearly: question.reviewYearly === true,
  };
}

/** The questions a condition may name: those before this one in its step (a later one is never shown first). */
export function conditionCandidates(step: Step, questionId: string | null, current = ''): Question[] {
  const index = questionId ? step.questions.findIndex((question) => question.id === questionId) : -1;
  const offered = (index === -1 ? step.questions : step.questions.slice(0, index)).filter((question) => question.type !== 'table');
  // The condition a question has now stays on offer, even where it would no longer be chosen.
  const kept = current && !offered.some((question) => question.id === current) ? step.questions.filter((question) => question.id === current) : [];
  return [...offered, ...kept];
}

/** The bank's fields the form describes (optional ones left out when empty or not for this type). */
export function fieldsOf(form: QuestionForm, step: Step): NewQuestion {
  const condition = form.conditionQuestionId ? step.questions.find((question) => question.id === form.conditionQuestionId) : undefined;
  const fields: NewQuestion = { number: form.number.trim(), title: form.title.trim(), type: form.type, required: form.required };
  if (form.help.trim()) fields.help = form.help.trim();
  if (hasPlaceholder(form.type) && form.placeholder.trim()) fields.placeholder = form.placeholder.trim();
  if (form.type === 'select') fields.options = form.options.map((option) => ({ value: option.value.trim(), label: option.label.trim() }));
  if (form.type === 'table') {
    fields.columns = form.columns.map((column) => {
      const options = column.options
        .split(/[,\n]/)
        .map((option) => option.trim())
        .filter(Boolean);
      return { header: column.header.trim(), type: column.type, ...(column.type === 'select' ? { options } : {}) };
    });
  }
  if (canGate(form.type) && form.gatesFollowing) fields.gatesFollowing = true;
  if (condition) {
    fields.visibleWhen = { questionId: condition.id, equals: canGate(condition.type) ? form.conditionEquals === 'true' : form.conditionEquals };
  }
  if (form.reviewYearly) fields.reviewYearly = true;
  return fields;
}

/** What a person must fix before saving (the server checks again). Empty when the form is fine. */
export function problemsOf(form: QuestionForm): string[] {
  const problems: string[] = [];
  if (!form.number.trim()) problems.push('Give the question a number, such as 6a.');
  if (!form.title.trim()) problems.push('Give the question a title.');
  if (form.type === 'select') {
    if (form.options.length < 2) problems.push('A drop-down list needs at least two options.');
    if (form.options.some((option) => !option.value.trim() || !option.label.trim())) problems.push('Every option needs a value and a label.');
    if (new Set(form.options.map((option) => option.value.trim())).size !== form.options.length) problems.push('Option values must differ.');
  }
  if (form.type === 'table') {
    if (form.columns.length < 1) problems.push('A table needs at least one column.');
    if (form.columns.some((column) => !column.header.trim())) problems.push('Every column needs a header.');
    if (new Set(form.columns.map((column) => column.header.trim())).size !== form.columns.length) problems.push('Column headers must differ.');
    if (form.columns.some((column) => column.type === 'select' && !column.options.trim())) problems.push('A drop-down column needs its options.');
  }
  if (form.conditionQuestionId && !form.conditionEquals.trim()) problems.push('Say which answer shows the question.');
  return problems;
}

const EDITABLE = ['number', 'title', 'type', 'required', 'help', 'placeholder', 'options', 'columns', 'gatesFollowing', 'visibleWhen', 'reviewYearly'] as const;
/** Optional flags stored as false mean the same as no flag. */
const normal = (value: unknown) => (value === false ? undefined : JSON.stringify(value));

/** Only the fields the form changes on `question`: a new value, or null to remove an optional field. */
export function changesOf(question: Question, form: QuestionForm, step: Step): QuestionChanges {
  const next = fieldsOf(form, step) as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  for (const key of EDITABLE) {
    const before = (question as Record<string, unknown>)[key];
    const after = next[key];
    if (key === 'required') {
      if (before !== after) changes[key] = after;
      continue;
    }
    if (normal(before) === normal(after)) continue;
    changes[key] = after === undefined ? null : after;
  }
  return changes as QuestionChanges;
}

/** A step key suggested from its title: "Wellness plan 2" → "wellnessPlan2" (letters and digits, starting with a letter). */
export function stepKeyFrom(title: string): string {
  return title
    .replace(/[^a-zA-Z0-9 ]/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1).toLowerCase()))
    .join('')
    .replace(/^[0-9]+/, '')
    .slice(0, 64);
}
