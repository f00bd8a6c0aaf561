import { z } from 'zod';
import {
  TABLE_MAX_COLUMNS,
  TABLE_MAX_ROWS,
  TEXT_ANSWER_MAX_LENGTH,
  type Answer,
  type Question,
  type Step,
  type StepAnswers,
  type TableAnswer,
} from './questionBank.ts';

/** A table cell holds at most this many characters. */
export const TABLE_CELL_MAX_LENGTH = 2000;

export const tableAnswerSchema = z.strictObject({
  headers: z.array(z.string().max(200)).max(TABLE_MAX_COLUMNS),
  rows: z.array(z.array(z.string().max(TABLE_CELL_MAX_LENGTH)).max(TABLE_MAX_COLUMNS)).max(TABLE_MAX_ROWS),
});

const answerSchemas = new WeakMap<Question, z.ZodType<Answer>>();
const questionMaps = new WeakMap<Step, Map<string, Question>>();

/** One of a step's questions by id (each save looks up every answer's question). Indexed once per step. */
export function questionById(step: Step, questionId: string): Question | undefined {
  let questions = questionMaps.get(step);
  if (!questions) questionMaps.set(step, (questions = new Map(step.questions.map((question) => [question.id, question]))));
  return questions.get(questionId);
}

/** The schema one question's answer must satisfy; `null` clears an answer. Built once per question. */
export function answerSchema(question: Question): z.ZodType<Answer> {
  let schema = answerSchemas.get(question);
  if (!schema) answerSchemas.set(question, (schema = buildAnswerSchema(question)));
  return schema;
}

function buildAnswerSchema(question: Question): z.ZodType<Answer> {
  switch (question.type) {
    case 'text':
    case 'textarea':
      return z.string().max(TEXT_ANSWER_MAX_LENGTH).nullable();
    case 'yesno':
    case 'checkbox':
      return z.boolean().nullable();
    case 'select': {
      const values = (question.options ?? []).map((option) => option.value);
      return z
        .string()
        .refine((value) => value === '' || values.includes(value), { message: `must be one of ${values.join(', ')}` })
        .nullable();
    }
    case 'table':
      return tableAnswerSchema.nullable();
  }
}

export function isActive(question: Question): boolean {
  return question.active !== false;
}

export function isAnswered(question: Question, answer: Answer | undefined): boolean {
  if (answer === null || answer === undefined) return false;
  switch (question.type) {
    case 'text':
    case 'textarea':
    case 'select':
      return typeof answer === 'string' && answer.trim() !== '';
    case 'yesno':
      return typeof answer === 'boolean';
    case 'checkbox':
      return answer === true;
    case 'table':
      return typeof answer === 'object' && (answer as TableAnswer).rows.some((row) => row.some((cell) => cell.trim() !== ''));
  }
}

/** Nothing was written: no value, blank text, or a table without a filled cell. Any yes/no value is written. */
export function isBlankAnswer(answer: Answer | undefined): boolean {
  if (answer === null || answer === undefined) return true;
  if (typeof answer === 'string') return answer.trim() === '';
  if (typeof answer === 'boolean') return false;
  return !answer.rows.some((row) => row.some((cell) => cell.trim() !== ''));
}

/**
 * The questions a person sees, in order: active ones, minus those hidden by a gate
 * (`gatesFollowing` not answered yes hides the rest of the step) or by `visibleWhen`.
 */
export function visibleQuestions(step: Step, answers: StepAnswers): Question[] {
  const visible: Question[] = [];
  const shown = new Set<string>();
  for (const question of step.questions) {
    if (!isActive(question)) continue;
    const condition = question.visibleWhen;
    if (condition && !(shown.has(condition.questionId) && answers[condition.questionId] === condition.equals)) continue;
    visible.push(question);
    shown.add(question.id);
    if (question.gatesFollowing && answers[question.id] !== true) break;
  }
  return visible;
}

/** The visible required questions a person has not answered yet. */
export function unansweredRequired(step: Step, answers: StepAnswers): Question[] {
  return visibleQuestions(step, answers).filter((question) => question.required && !isAnswered(question, answers[question.id]));
}

/** Visible required questions of a whole plan, and how many of them are answered. */
export function requiredProgress(steps: readonly Step[], answersByStep: Readonly<Record<string, { data: StepAnswers } | undefined>>) {
  let required = 0;
  let answered = 0;
  for (const step of steps) {
    const answers = answersByStep[step.key]?.data ?? {};
    for (const question of visibleQuestions(step, answers)) {
      if (!question.required) continue;
      required++;
      if (isAnswered(question, answers[question.id])) answered++;
    }
  }
  return { required, answered };
}

/** Complete when every visible required question has an answer. */
export function isStepComplete(step: Step, answers: StepAnswers): boolean {
  return unansweredRequired(step, answers).length === 0;
}

const sameCells = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((cell, index) => cell === b[index]);

/** True when two answers are the same value (tables compared cell by cell, whatever their key order). */
export function sameAnswer(a: Answer | undefined, b: Answer | undefined): boolean {
  if (a === b) return true;
  if (a == null || b == null) return (a ?? null) === (b ?? null);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  return sameCells(a.headers, b.headers) && a.rows.length === b.rows.length && a.rows.every((row, index) => sameCells(row, b.rows[index]!));
}
