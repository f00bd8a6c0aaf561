import { z } from 'zod';
import { STEP_KEY_PATTERN } from './steps.ts';

export const QUESTION_TYPES = ['text', 'textarea', 'checkbox', 'yesno', 'select', 'table'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** Table answers are capped at this many rows and columns. */
export const TABLE_MAX_ROWS = 100;
export const TABLE_MAX_COLUMNS = 20;
export const TEXT_ANSWER_MAX_LENGTH = 50_000;

export const QUESTION_ID_PATTERN = /^[a-z][a-zA-Z0-9_]{1,79}$/;

export const tableColumnSchema = z.strictObject({
  header: z.string().min(1).max(120),
  type: z.enum(['text', 'select']),
  options: z.array(z.string().min(1)).min(1).optional(),
});

export const selectOptionSchema = z.strictObject({
  value: z.string().min(1).max(80),
  label: z.string().min(1).max(200),
});

export const questionSchema = z
  .strictObject({
    /** Stable forever and unique across the whole bank: answers are keyed by it. */
    id: z.string().regex(QUESTION_ID_PATTERN),
    /** The label users see, such as "3a". */
    number: z.string().min(1).max(12),
    title: z.string().min(1).max(600),
    type: z.enum(QUESTION_TYPES),
    required: z.boolean(),
    help: z.string().max(2000).optional(),
    placeholder: z.string().max(200).optional(),
    options: z.array(selectOptionSchema).min(2).optional(),
    columns: z.array(tableColumnSchema).min(1).max(TABLE_MAX_COLUMNS).optional(),
    /** On a yes/no or checkbox: hides the rest of the step until answered yes. */
    gatesFollowing: z.boolean().optional(),
    visibleWhen: z.strictObject({ questionId: z.string().regex(QUESTION_ID_PATTERN), equals: z.union([z.string(), z.boolean()]) }).optional(),
    /** About people, dates, schedules or targets: copied answers get a "same as last year" flag. */
    reviewYearly: z.boolean().optional(),
    /** Deactivated questions stay in the bank so answers keyed by their id keep their meaning. */
    active: z.boolean().optional(),
  })
  .superRefine((q, ctx) => {
    if (q.type === 'select' && !q.options) ctx.addIssue({ code: 'custom', message: `${q.id}: select needs options` });
    if (q.type !== 'select' && q.options) ctx.addIssue({ code: 'custom', message: `${q.id}: only select has options` });
    if (q.type === 'table' && !q.columns) ctx.addIssue({ code: 'custom', message: `${q.id}: table needs columns` });
    if (q.type !== 'table' && q.columns) ctx.addIssue({ code: 'custom', message: `${q.id}: only table has columns` });
    if (q.gatesFollowing && q.type !== 'yesno' && q.type !== 'checkbox') {
      ctx.addIssue({ code: 'custom', message: `${q.id}: only yes/no or checkbox questions gate` });
    }
    for (const column of q.columns ?? []) {
      if (column.type === 'select' && !column.options) {
        ctx.addIssue({ code: 'custom', message: `${q.id}: select column "${column.header}" needs options` });
      }
    }
  });

export const stepSchema = z.strictObject({
  key: z.string().regex(STEP_KEY_PATTERN),
  title: z.string().min(1).max(200),
  intro: z.string().max(4000),
  questions: z.array(questionSchema),
});

export const questionBankSchema = z
  .strictObject({
    version: z.number().int().positive(),
    steps: z.array(stepSchema).min(1),
  })
  .superRefine((bank, ctx) => {
    const stepKeys = new Set<string>();
    const questionIds = new Map<string, string>();
    for (const step of bank.steps) {
      if (stepKeys.has(step.key)) ctx.addIssue({ code: 'custom', message: `duplicate step key ${step.key}` });
      stepKeys.add(step.key);
      for (const question of step.questions) {
        const seenIn = questionIds.get(question.id);
        if (seenIn) ctx.addIssue({ code: 'custom', message: `question id ${question.id} in ${step.key} also in ${seenIn}` });
        questionIds.set(question.id, step.key);
      }
    }
    for (const step of bank.steps) {
      const ids = new Set(step.questions.map((q) => q.id));
      for (const question of step.questions) {
        if (question.visibleWhen && !ids.has(question.visibleWhen.questionId)) {
          ctx.addIssue({ code: 'custom', message: `${question.id}: visibleWhen refers outside its step` });
        }
      }
    }
  });

export type TableColumn = z.infer<typeof tableColumnSchema>;
export type Question = z.infer<typeof questionSchema>;
export type Step = z.infer<typeof stepSchema>;
export type QuestionBank = z.infer<typeof questionBankSchema>;

export interface TableAnswer {
  headers: string[];
  rows: string[][];
}
export type Answer = string | boolean | TableAnswer | null;
export type StepAnswers = Record<string, Answer>;
