import { z } from 'zod';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { QUESTION_TYPES, QUESTION_ID_PATTERN, selectOptionSchema, stepSchema, tableColumnSchema } from '../questionBank.ts';
import { nullableIsoTimeSchema, schoolYearSchema } from './common.ts';

const stepKeySchema = z.string().regex(STEP_KEY_PATTERN, 'must be a step key');

/** The question fields an editor may change (never the id, which answers are keyed by). */
const editableQuestionFields = {
  number: z.string().trim().min(1).max(12),
  title: z.string().trim().min(1).max(600),
  type: z.enum(QUESTION_TYPES),
  required: z.boolean(),
  help: z.string().max(2000),
  placeholder: z.string().max(200),
  options: z.array(selectOptionSchema).min(2),
  columns: z.array(tableColumnSchema).min(1).max(20),
  gatesFollowing: z.boolean(),
  visibleWhen: z.strictObject({ questionId: z.string().regex(QUESTION_ID_PATTERN), equals: z.union([z.string(), z.boolean()]) }),
  reviewYearly: z.boolean(),
};

export const questionIdParam = z.string().regex(QUESTION_ID_PATTERN);
export const stepKeyParam = stepKeySchema;

export const updateQuestionSchema = z
  .strictObject(
    Object.fromEntries(Object.entries(editableQuestionFields).map(([key, schema]) => [key, schema.nullable().optional()])) as {
      [K in keyof typeof editableQuestionFields]: z.ZodOptional<z.ZodNullable<(typeof editableQuestionFields)[K]>>;
    },
  )
  .refine((body) => Object.keys(body).length > 0, 'nothing to update');

export const addQuestionSchema = z.strictObject({
  stepKey: stepKeySchema,
  position: z.number().int().min(0).optional(),
  question: z.strictObject({
    ...editableQuestionFields,
    help: editableQuestionFields.help.optional(),
    placeholder: editableQuestionFields.placeholder.optional(),
    options: editableQuestionFields.options.optional(),
    columns: editableQuestionFields.columns.optional(),
    gatesFollowing: editableQuestionFields.gatesFollowing.optional(),
    visibleWhen: editableQuestionFields.visibleWhen.optional(),
    reviewYearly: editableQuestionFields.reviewYearly.optional(),
  }),
});

export const addStepSchema = z.strictObject({
  key: stepKeySchema,
  title: z.string().trim().min(1).max(200),
  intro: z.string().max(4000).default(''),
  position: z.number().int().min(0).optional(),
});

export const updateStepSchema = z
  .strictObject({ title: z.string().trim().min(1).max(200).optional(), intro: z.string().max(4000).optional() })
  .refine((body) => Object.keys(body).length > 0, 'nothing to update');

export const reorderSchema = z.strictObject({ questionIds: z.array(z.string().regex(QUESTION_ID_PATTERN)).min(1) });

export const activeSchema = z.strictObject({ active: z.boolean().default(false) });

export const publishSchema = z.strictObject({ schoolYear: schoolYearSchema.optional() });

/** A bank as the admin routes send it: the draft after an edit, or either side of GET /api/admin/question-bank. */
export const adminBankSchema = z.object({ version: z.number().int().positive(), steps: z.array(stepSchema) });
export type AdminBank = z.infer<typeof adminBankSchema>;

/** The ids the draft adds, changes or deactivates, and the steps it adds, changes or reorders, against the published bank. */
export const bankDifferencesSchema = z.object({
  addedQuestions: z.array(z.string()),
  changedQuestions: z.array(z.string()),
  deactivatedQuestions: z.array(z.string()),
  addedSteps: z.array(z.string()),
  changedSteps: z.array(z.string()),
  reorderedSteps: z.array(z.string()),
});
export type BankDifferences = z.infer<typeof bankDifferencesSchema>;

export const bankVersionSummarySchema = z.object({
  version: z.number().int().positive(),
  status: z.enum(['draft', 'published', 'archived']),
  schoolYear: z.string().nullable(),
  publishedAt: nullableIsoTimeSchema,
});
export type BankVersionSummary = z.infer<typeof bankVersionSummarySchema>;

/** GET /api/admin/question-bank */
export const adminBankViewSchema = z.object({
  published: adminBankSchema.nullable(),
  draft: adminBankSchema.nullable(),
  differences: bankDifferencesSchema,
  versions: z.array(bankVersionSummarySchema),
});
export type AdminBankView = z.infer<typeof adminBankViewSchema>;

/** POST /api/admin/question-bank/publish */
export const publishResponseSchema = z.object({
  success: z.literal(true),
  version: z.number().int().positive(),
  draftVersion: z.number().int().positive(),
});
export type PublishResponse = z.infer<typeof publishResponseSchema>;

export type QuestionChanges = z.input<typeof updateQuestionSchema>;
export type NewQuestion = z.input<typeof addQuestionSchema>['question'];
