import { z } from 'zod';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { QUESTION_TYPES, QUESTION_ID_PATTERN, selectOptionSchema, tableColumnSchema } from '../questionBank.ts';
import { schoolYearSchema } from './common.ts';

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
