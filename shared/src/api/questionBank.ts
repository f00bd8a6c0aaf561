import { z } from 'zod';
import { schoolYearSchema } from './common.ts';

export const questionBankQuerySchema = z.object({
  schoolYear: schoolYearSchema.optional(),
  version: z.coerce.number().int().positive().optional(),
});
