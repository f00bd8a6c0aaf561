/**
 * A fully answered plan for the export tests and the benchmark: every question type answered, a
 * 40-row table, a 12-column table, a 20,000-character answer with line breaks, and names and
 * answers in Spanish, Chinese, Bengali and Arabic. A few questions are deliberately left blank, and
 * two gates are answered so that questions holding stored answers are hidden: those answers must not
 * be exported.
 */
import { eq } from 'drizzle-orm';
import { visibleQuestions, type Answer, type Question, type QuestionBank, type StepAnswers, type TableAnswer } from '@csp/shared';
import type { BaseServices } from '../services.ts';
import { users } from '../storage/schema.ts';
import type { PlanContext } from '../domain/plans/loadPlan.ts';
import { loadPlanFor } from '../auth/loadPlanFor.ts';

/** Text in four scripts a New York City school writes. */
export const SAMPLES = {
  spanish: 'Señora Núñez, año escolar, mañana',
  chinese: '例如 王小明',
  bengali: 'যেমন রহিম',
  arabic: 'مثلا أحمد',
} as const;
const NAMES = [SAMPLES.spanish, SAMPLES.chinese, SAMPLES.bengali, SAMPLES.arabic];

export const LONG_ANSWER_LENGTH = 20_000;
/** The question that gets the 20,000-character answer. */
export const LONG_QUESTION = 'att_strategy';
/** The question that gets the 40-row table. */
export const LONG_TABLE_QUESTION = 'sp_crisisTeam';
export const LONG_TABLE_ROWS = 40;
/** A table answered with 12 columns (answers may carry up to 20): the PDF shrinks its font. */
const WIDE_TABLE_QUESTION = 'sp_responderSchedule';
const WIDE_TABLE_COLUMNS = 12;
/** Left unanswered: each must print as a blank line. */
export const BLANK_QUESTIONS = ['sh_posterLocations', 'rfa_incidentData', 'csl_goalReviewDate', 'cai_liaisonTeam'] as const;
/** Gates answered so the questions after them are hidden, though they hold answers. */
const CLOSED_GATES: Record<string, Answer> = { cai_hasFosterStudents: false, asp_offersPrograms: false };
/** Stored in every hidden question's answer: must never appear in an export. */
export const HIDDEN_MARKER = 'HIDDENANSWERMARKER';

/** Exactly `LONG_ANSWER_LENGTH` characters in paragraphs, with single and double line breaks. */
export function longAnswer(): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 1; length < LONG_ANSWER_LENGTH; i++) {
    const paragraph =
      `Paragraph ${i}: the attendance team reviews the daily data, calls families on the same day and records every contact ` +
      `(${NAMES[i % NAMES.length]}). Outreach continues until the student is back in class.` +
      (i % 5 === 0 ? '\n\n' : '\n');
    parts.push(paragraph);
    length += paragraph.length;
  }
  const text = parts.join('').slice(0, LONG_ANSWER_LENGTH - 1);
  return `${text.trimEnd()}.`.padEnd(LONG_ANSWER_LENGTH, '.');
}

function tableAnswer(question: Question, rows: number, columns?: number): TableAnswer {
  const headers = columns
    ? Array.from({ length: columns }, (_, c) => question.columns?.[c]?.header ?? `Extra column ${c + 1}`)
    : (question.columns ?? []).map((column) => column.header);
  return {
    headers,
    rows: Array.from({ length: rows }, (_, r) =>
      headers.map((_, c) => {
        const column = question.columns?.[c];
        if (column?.type === 'select') return column.options![r % column.options!.length]!;
        if (c === 0) return NAMES[r % NAMES.length]!;
        return `${question.id.slice(0, 6)}r${r + 1}c${c + 1}`;
      }),
    ),
  };
}

function answerFor(question: Question, index: number): Answer {
  switch (question.type) {
    case 'text':
      return `${question.id}: ${NAMES[index % NAMES.length]}`;
    case 'textarea':
      return `${question.id} first line: ${NAMES[index % NAMES.length]}\nsecond line: ${NAMES[(index + 1) % NAMES.length]}`;
    case 'yesno':
      return index % 2 === 0;
    case 'checkbox':
      return true;
    case 'select':
      return question.options![index % question.options!.length]!.value;
    case 'table':
      return tableAnswer(question, 2 + (index % 2));
  }
}

export interface FullPlan {
  /** What to save, step by step (blank questions as null). */
  answers: Map<string, StepAnswers>;
  /** Question ids that are visible and answered. */
  answered: string[];
  /** Visible table answers. */
  tables: string[];
}

/** Answers for every question of a bank, with the special cases above. */
export function fullPlan(bank: QuestionBank): FullPlan {
  const answers = new Map<string, StepAnswers>();
  const special = [LONG_QUESTION, LONG_TABLE_QUESTION, WIDE_TABLE_QUESTION, ...BLANK_QUESTIONS, ...Object.keys(CLOSED_GATES)];
  const ids = new Set(bank.steps.flatMap((step) => step.questions.map((question) => question.id)));
  for (const id of special) if (!ids.has(id)) throw new Error(`the export fixture needs question ${id} in the bank`);

  let index = 0;
  for (const step of bank.steps) {
    const data: StepAnswers = {};
    for (const question of step.questions) {
      if (question.active === false) continue;
      data[question.id] = answerFor(question, index++);
    }
    // Open every gate and satisfy every condition, then close the chosen gates.
    for (const question of step.questions) {
      if (question.gatesFollowing) data[question.id] = true;
      if (question.visibleWhen) data[question.visibleWhen.questionId] = question.visibleWhen.equals;
    }
    for (const [id, value] of Object.entries(CLOSED_GATES)) if (id in data) data[id] = value;
    for (const question of step.questions) {
      if (question.id === LONG_QUESTION) data[question.id] = longAnswer();
      if (question.id === LONG_TABLE_QUESTION) data[question.id] = tableAnswer(question, LONG_TABLE_ROWS);
      if (question.id === WIDE_TABLE_QUESTION) data[question.id] = tableAnswer(question, 5, WIDE_TABLE_COLUMNS);
      if ((BLANK_QUESTIONS as readonly string[]).includes(question.id)) data[question.id] = null;
    }
    // Hidden questions keep answers that carry the marker.
    const visible = new Set(visibleQuestions(step, data).map((question) => question.id));
    for (const question of step.questions) {
      if (visible.has(question.id) || question.active === false) continue;
      if (question.type === 'text' || question.type === 'textarea') data[question.id] = `${HIDDEN_MARKER} ${question.id}`;
      if (question.type === 'table') data[question.id] = { headers: ['Hidden'], rows: [[`${HIDDEN_MARKER} ${question.id}`]] };
    }
    answers.set(step.key, data);
  }

  const answered: string[] = [];
  const tables: string[] = [];
  for (const step of bank.steps) {
    const data = answers.get(step.key)!;
    for (const question of visibleQuestions(step, data)) {
      if (data[question.id] === null || data[question.id] === undefined) continue;
      answered.push(question.id);
      if (question.type === 'table') tables.push(question.id);
    }
  }
  return { answers, answered, tables };
}

/** A plan as a user (by e-mail) reads it, for calling the export builders directly. */
export async function planContextFor(services: BaseServices, email: string, formId: string): Promise<PlanContext> {
  const [actor] = await services.storage.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!actor) throw new Error(`no user ${email}`);
  return loadPlanFor(services, actor, formId, ['readPlan']);
}
