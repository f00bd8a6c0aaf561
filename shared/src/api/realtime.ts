import { z } from 'zod';
import { ID_PATTERN } from './common.ts';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { PLAN_STATUSES } from '../roles.ts';
import { commentSchema, editorSchema, personSchema } from './forms.ts';
import { notificationSchema } from './notifications.ts';
import { rolloverProgressSchema } from './admin.ts';

/** Payloads clients emit on /realtime (docs/collaboration.md). */
/** `watch: true` follows the plan's events without being present on it (a dashboard). */
export const planJoinSchema = z.object({
  formId: z.string().regex(ID_PATTERN),
  stepKey: z.string().regex(STEP_KEY_PATTERN).nullish(),
  watch: z.literal(true).optional(),
});
export const planLeaveSchema = z.object({ formId: z.string().regex(ID_PATTERN) });
export const presenceStepSchema = z.object({ formId: z.string().regex(ID_PATTERN), stepKey: z.string().regex(STEP_KEY_PATTERN).nullable() });

// ---- Events the server emits (docs/collaboration.md), as the web client reads them

export const presenceEventSchema = z.object({ formId: z.string(), editors: z.array(editorSchema) });
export type PresenceEvent = z.infer<typeof presenceEventSchema>;
export const lockEventSchema = z.object({
  formId: z.string(),
  stepKey: z.string(),
  state: z.enum(['acquired', 'released', 'expired']),
  lockedBy: personSchema,
  /** Sent with `acquired` only. */
  expiresAt: z.string().optional(),
});
export type LockEvent = z.infer<typeof lockEventSchema>;
export const commentEventSchema = z.object({ formId: z.string(), comment: commentSchema });
export type CommentEvent = z.infer<typeof commentEventSchema>;
/** A plan moved: `submit` by an editor, `review` by a Super Admin. */
export const statusEventSchema = z.object({ formId: z.string(), status: z.enum(PLAN_STATUSES), action: z.enum(['submit', 'review']) });
export type StatusEvent = z.infer<typeof statusEventSchema>;
/** A review flag was cleared ("mark reviewed"). */
export const flagEventSchema = z.object({ formId: z.string(), stepKey: z.string(), questionId: z.string() });
export type FlagEvent = z.infer<typeof flagEventSchema>;
export const stepSavedEventSchema = z.object({
  formId: z.string(),
  stepKey: z.string(),
  revisionCount: z.number().int(),
  lastUpdated: z.string().nullable(),
  by: z.object({ userId: z.string(), name: z.string() }),
});
export type StepSavedEvent = z.infer<typeof stepSavedEventSchema>;
export const notificationEventSchema = z.object({ notification: notificationSchema });
export type NotificationEvent = z.infer<typeof notificationEventSchema>;
/** A district rollover's progress, to the user who started it. */
export const rolloverEventSchema = z.object({ progress: rolloverProgressSchema });
export type RolloverEvent = z.infer<typeof rolloverEventSchema>;
export const joinAckSchema = z.union([
  z.object({ ok: z.literal(true), warning: z.string().optional() }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
