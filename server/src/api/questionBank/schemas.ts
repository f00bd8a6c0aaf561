import { z } from 'zod';
import { schoolYearSchema } from '../schemas.ts';

export const questionBankQuerySchema = z.object({
  schoolYear: schoolYearSchema.optional(),
  version: z.coerce.number().int().positive().optional(),
});
