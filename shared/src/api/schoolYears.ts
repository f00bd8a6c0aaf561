import { z } from 'zod';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { schoolYearSchema } from './common.ts';

export const yearQuerySchema = z.object({ schoolYear: schoolYearSchema.optional() });

export const nextYearSchema = z.strictObject({ fromYear: schoolYearSchema.optional() });

const deadlineSchema = z.strictObject({
  stepKey: z.string().regex(STEP_KEY_PATTERN),
  label: z.string().trim().min(1).max(200),
  dueDate: z.iso.date(),
});

const goalSchema = z.strictObject({
  key: z.string().trim().min(1).max(80),
  label: z.string().trim().min(1).max(200),
  target: z.union([z.number(), z.string().max(100)]),
  unit: z.string().trim().max(40),
});

export const updateYearSchema = z.strictObject({
  schoolYear: schoolYearSchema,
  archived: z.boolean().optional(),
  questionBankVersion: z.number().int().positive().optional(),
  deadlines: z.array(deadlineSchema).max(100).optional(),
  districtGoals: z.array(goalSchema).max(100).optional(),
});
