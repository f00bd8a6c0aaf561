import { z } from 'zod';
import { PLAN_STATUSES } from '../roles.ts';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { QUESTION_ID_PATTERN } from '../questionBank.ts';
import { emailSchema, idSchema, pagingSchema, schoolNameSchema, schoolYearSchema } from './common.ts';

export const MERGE_STRATEGIES = ['last-write-wins', 'merge', 'reject'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

const stepKeySchema = z.string().regex(STEP_KEY_PATTERN, 'must be a step key');
const questionIdSchema = z.string().regex(QUESTION_ID_PATTERN, 'must be a question id');

export const listFormsQuerySchema = pagingSchema.extend({
  schoolYear: schoolYearSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(200),
});

export const createFormSchema = z.strictObject({
  schoolName: schoolNameSchema,
  schoolYear: schoolYearSchema,
  initialOwnerEmail: emailSchema.optional(),
});

export const updateFormSchema = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('update'),
    schoolName: schoolNameSchema.optional(),
    principalEmail: emailSchema.optional(),
    assignedTo: emailSchema.nullable().optional(),
  }),
  z.strictObject({ action: z.literal('submit'), status: z.literal('submitted').optional() }),
  z.strictObject({ action: z.literal('review'), status: z.enum(PLAN_STATUSES).optional(), comment: z.string().trim().max(5000).optional() }),
]);

export const stepSaveSchema = z.strictObject({
  stepData: z.strictObject({
    completed: z.boolean().optional(),
    data: z.record(z.string(), z.unknown()),
  }),
  lastUpdated: z.iso.datetime({ offset: true }).nullable().optional(),
  revisionCount: z.number().int().min(0).optional(),
  mergeStrategy: z.enum(MERGE_STRATEGIES).default('last-write-wins'),
});

export const registerEditorSchema = z.strictObject({ stepKey: stepKeySchema.nullable().optional() });

export const attestSchema = z.strictObject({ name: z.string().trim().min(1).max(200) });

export const reviewFlagSchema = z.strictObject({ questionId: questionIdSchema, stepKey: stepKeySchema.optional() });

export const createCommentSchema = z.strictObject({
  comment: z.string().trim().min(1).max(5000),
  stepKey: stepKeySchema.optional(),
  questionId: questionIdSchema.optional(),
});

export const commentActionSchema = z.strictObject({ action: z.enum(['read', 'fixed']) });

export const emailShareSchema = z.strictObject({ sharedWithEmails: z.array(emailSchema).max(100) });

export const duplicateSchema = z.strictObject({ schoolYear: schoolYearSchema, force: z.boolean().default(false) });

export const compareQuerySchema = z.object({ compareYear: schoolYearSchema.optional(), steps: z.enum(['all']).optional() });

export const transferSchema = z.strictObject({ formId: idSchema, newOwnerEmail: emailSchema });
