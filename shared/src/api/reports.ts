import { z } from 'zod';
import { schoolYearSchema } from './common.ts';

export const reportYearQuerySchema = z.object({ schoolYear: schoolYearSchema.optional() });
