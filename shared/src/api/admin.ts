import { z } from 'zod';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { idSchema, schoolYearSchema } from './common.ts';
import { planShareSchema } from './forms.ts';

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

/** POST /api/admin/forms/share */
export const shareResponseSchema = z.object({
  success: z.literal(true),
  formId: z.string(),
  userIds: z.array(z.string()),
  permissions: z.enum(['view', 'edit']),
  sections: z.array(z.string()),
});
export type ShareResponse = z.infer<typeof shareResponseSchema>;

/** GET /api/admin/forms/share: the people a plan is shared with. */
export const planSharesSchema = z.object({ shares: z.array(planShareSchema) });
export type PlanShares = z.infer<typeof planSharesSchema>;

/** DELETE /api/admin/forms/share: the ids whose share was removed. */
export const unshareResponseSchema = z.object({ success: z.literal(true), removed: z.array(z.string()) });
export type UnshareResponse = z.infer<typeof unshareResponseSchema>;

/** POST /api/admin/forms/live */
export const liveResponseSchema = z.object({ success: z.literal(true), formId: z.string(), allowEditsWhenArchived: z.boolean() });
export type LiveResponse = z.infer<typeof liveResponseSchema>;

/** A district rollover's progress, as `GET /api/admin/forms/rollover` and the `rollover` event carry it. */
export const rolloverProgressSchema = z.object({
  state: z.enum(['running', 'done', 'failed']),
  sourceYear: z.string(),
  targetYear: z.string(),
  total: z.number().int(),
  processed: z.number().int(),
  created: z.number().int(),
  skipped: z.number().int(),
  filled: z.number().int(),
  errors: z.number().int(),
  updatedAt: z.string(),
});
export type RolloverProgress = z.infer<typeof rolloverProgressSchema>;

/** POST /api/admin/forms/rollover */
export const rolloverResultSchema = z.object({
  success: z.literal(true),
  sourceYear: z.string(),
  targetYear: z.string(),
  considered: z.number().int(),
  created: z.array(z.object({ school: z.string(), formId: z.string() })),
  skipped: z.array(z.object({ school: z.string(), existingFormId: z.string() })),
  filled: z.array(z.object({ school: z.string(), formId: z.string() })),
  errors: z.array(z.object({ school: z.string(), error: z.string() })),
  archivedYear: z.string(),
});
export type RolloverResult = z.infer<typeof rolloverResultSchema>;

/** GET /api/admin/forms/rollover: a finished run (`done`) adds its report while the server keeps it (24 h). */
export const rolloverProgressResponseSchema = z.object({ progress: rolloverProgressSchema, result: rolloverResultSchema.optional() });
