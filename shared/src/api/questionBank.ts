import { z } from 'zod';
import { stepSchema } from '../questionBank.ts';
import { schoolYearSchema } from './common.ts';

export const questionBankQuerySchema = z.object({
  schoolYear: schoolYearSchema.optional(),
  version: z.coerce.number().int().positive().optional(),
});

/** GET /api/question-bank */
export const questionBankResponseSchema = z.object({
  version: z.number().int(),
  source: z.enum(['published', 'bundled']),
  steps: z.array(stepSchema),
});
export type QuestionBankResponse = z.infer<typeof questionBankResponseSchema>;
