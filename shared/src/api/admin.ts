import { z } from 'zod';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { idSchema, schoolYearSchema } from './common.ts';

export const shareSchema = z.strictObject({
  formId: idSchema,
  userIds: z.array(idSchema).min(1).max(200),
  permissions: z.enum(['view', 'edit']),
  sections: z.array(z.string().regex(STEP_KEY_PATTERN)).max(50).default([]),
});

export const shareQuerySchema = z.object({ formId: idSchema });

export const unshareSchema = z.strictObject({ formId: idSchema, userIds: z.array(idSchema).min(1).max(200) });

export const rolloverSchema = z.strictObject({ sourceYear: schoolYearSchema, targetYear: schoolYearSchema, force: z.boolean().default(false) });

export const rolloverQuerySchema = z.object({ sourceYear: schoolYearSchema, targetYear: schoolYearSchema });

export const liveSchema = z.strictObject({ formId: idSchema, live: z.boolean() });

/** POST /api/admin/forms/live */
export const liveResponseSchema = z.object({ success: z.literal(true), formId: z.string(), allowEditsWhenArchived: z.boolean() });
export type LiveResponse = z.infer<typeof liveResponseSchema>;
