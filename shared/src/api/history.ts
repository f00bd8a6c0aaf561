import { z } from 'zod';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { QUESTION_ID_PATTERN } from '../questionBank.ts';
import { idSchema, isoTimeSchema, pagingSchema } from './common.ts';
import { attestationSchema } from './forms.ts';

/** How a revision came about: people editing (live or by a save), a restore, or a copy from last year. */
export const REVISION_KINDS = ['edit', 'restore', 'copy'] as const;
export type RevisionKind = (typeof REVISION_KINDS)[number];

/** The decisions a plan version is taken at (its status move), and the copy that began a plan. */
export const VERSION_KINDS = ['submitted', 'under_review', 'approved', 'returned', 'copied'] as const;
export type VersionKind = (typeof VERSION_KINDS)[number];

/** What people read for each version kind. */
export const VERSION_KIND_LABELS: Record<VersionKind, string> = {
  submitted: 'Submitted',
  under_review: 'Review started',
  approved: 'Approved',
  returned: 'Returned for changes',
  copied: 'Copied from last year',
};

const personSchema = z.object({ id: z.string(), name: z.string() });

/** Any answer as stored (text, yes/no, checkbox, choice, table), or none. */
const storedAnswerSchema = z.unknown();

/** One burst of changes to one answer: from `before` to `after`. */
export const answerRevisionSchema = z.object({
  _id: z.string(),
  stepKey: z.string(),
  questionId: z.string(),
  kind: z.enum(REVISION_KINDS),
  authors: z.array(personSchema),
  before: storedAnswerSchema,
  after: storedAnswerSchema,
  /** For a restore: the revision whose text came back. */
  restoredFromId: z.string().nullable(),
  startedAt: isoTimeSchema,
  updatedAt: isoTimeSchema,
});
export type AnswerRevision = z.infer<typeof answerRevisionSchema>;

/** GET /api/forms/:id/history: newest first; one answer's (`stepKey` and `questionId`), one step's, or the plan's. */
export const historyQuerySchema = pagingSchema.extend({
  stepKey: z.string().regex(STEP_KEY_PATTERN, 'must be a step key').optional(),
  questionId: z.string().regex(QUESTION_ID_PATTERN, 'must be a question id').optional(),
});
export const historyResponseSchema = z.object({
  revisions: z.array(answerRevisionSchema),
  page: z.number(),
  limit: z.number(),
  total: z.number(),
});
export type HistoryResponse = z.infer<typeof historyResponseSchema>;

/** POST /api/forms/:id/history/:revisionId/restore: the answer as it was after that revision (`after`) or before it (`before`). */
export const restoreRevisionSchema = z.strictObject({ to: z.enum(['after', 'before']).default('after') });
export const restoreResponseSchema = z.object({
  success: z.literal(true),
  stepKey: z.string(),
  /** The answers the restore changed (none when they already held that text). */
  restored: z.array(z.string()),
  revisionCount: z.number(),
  lastUpdated: isoTimeSchema.nullable(),
});
export type RestoreResponse = z.infer<typeof restoreResponseSchema>;

export const planVersionSummarySchema = z.object({
  _id: z.string(),
  kind: z.enum(VERSION_KINDS),
  actorName: z.string(),
  comment: z.string().nullable(),
  createdAt: isoTimeSchema,
});
export type PlanVersionSummary = z.infer<typeof planVersionSummarySchema>;

/** GET /api/forms/:id/versions: newest first. */
export const versionListSchema = z.object({ versions: z.array(planVersionSummarySchema) });
export type VersionList = z.infer<typeof versionListSchema>;

/** GET /api/forms/:id/versions/:versionId: the whole plan's answers as they stood. */
export const planVersionSchema = planVersionSummarySchema.extend({
  steps: z.record(z.string(), z.object({ data: z.record(z.string(), z.unknown()), completed: z.boolean() })),
  attestation: attestationSchema.nullable(),
});
export type PlanVersion = z.infer<typeof planVersionSchema>;

/** POST /api/forms/:id/versions/:versionId/restore: one step's answers back as that version held them. */
/** GET /api/forms/:id/export/pdf|docx?version=: that version instead of the plan as it is now. */
export const exportQuerySchema = z.object({ version: idSchema.optional() });

export const restoreVersionStepSchema = z.strictObject({ stepKey: z.string().regex(STEP_KEY_PATTERN, 'must be a step key') });

export const versionParamsSchema = z.object({ id: idSchema, versionId: idSchema });
export const revisionParamsSchema = z.object({ id: idSchema, revisionId: idSchema });
