import { z } from 'zod';
import { PLAN_STATUSES } from '../roles.ts';
import { STEP_KEY_PATTERN } from '../steps.ts';
import { QUESTION_ID_PATTERN } from '../questionBank.ts';
import { NEEDS_UPDATE_REASONS } from '../records.ts';
import { tableAnswerSchema } from '../answers.ts';
import { emailSchema, idSchema, isoTimeSchema, nullableIsoTimeSchema, pagingSchema, schoolNameSchema, schoolYearSchema } from './common.ts';
import { districtGoalSchema } from './schoolYears.ts';

export const MERGE_STRATEGIES = ['last-write-wins', 'merge', 'reject'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

const stepKeySchema = z.string().regex(STEP_KEY_PATTERN, 'must be a step key');
const questionIdSchema = z.string().regex(QUESTION_ID_PATTERN, 'must be a question id');

/** Columns the plan list sorts by (the admin table's sortable columns). */
export const PLAN_SORTS = ['school', 'principal', 'status', 'progress', 'flags', 'updated'] as const;
export type PlanSort = (typeof PLAN_SORTS)[number];

/** How much of each plan a list carries: `full` (the specification's fields) or `light` (counts instead of flags). */
export const PLAN_LIST_VIEWS = ['full', 'light'] as const;

export const listFormsQuerySchema = pagingSchema.extend({
  schoolYear: schoolYearSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(200),
  status: z.enum(PLAN_STATUSES).optional(),
  /** Part of the school's name or the principal's e-mail, any case. */
  q: z.string().trim().min(1).max(200).optional(),
  sort: z.enum(PLAN_SORTS).optional(),
  order: z.enum(['asc', 'desc']).default('asc'),
  view: z.enum(PLAN_LIST_VIEWS).default('full').meta({
    description:
      '`full` (the default): each plan with its review flags (`needsUpdate`) and transfer history. `light`: those two replaced by counts, `flagsToReview` and `openComments` (a rolled-over plan carries about thirty flags, so a list of them is several times lighter).',
  }),
});
/** What a client may send: every field optional (the server fills the defaults). */
export type ListFormsQuery = Partial<z.output<typeof listFormsQuerySchema>>;

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

/** People a comment or reply mentions, by id (the text says "@Name"); each must be able to read the plan. */
const mentionsSchema = z.array(idSchema).max(20);

/** A review comment starts a thread anchored to a question, a step (without `questionId`) or the whole plan. */
export const createCommentSchema = z.strictObject({
  comment: z.string().trim().min(1).max(5000),
  stepKey: stepKeySchema.optional(),
  questionId: questionIdSchema.optional(),
  mentions: mentionsSchema.optional(),
});

/** POST /api/forms/:id/comments/:commentId/replies */
export const createReplySchema = z.strictObject({ body: z.string().trim().min(1).max(5000), mentions: mentionsSchema.optional() });

/** GET /api/forms/:id/comments: open threads, resolved ones, or both. */
export const threadListQuerySchema = z.object({ status: z.enum(['open', 'resolved', 'all']).default('all') });

/** GET /api/forms/:id/mentions: people who can read the plan, whose name or e-mail starts with `q`. */
export const mentionQuerySchema = z.object({ q: z.string().trim().max(100).default('') });

export const commentActionSchema = z.strictObject({ action: z.enum(['read', 'fixed']) });

export const emailShareSchema = z.strictObject({ sharedWithEmails: z.array(emailSchema).max(100) });

export const duplicateSchema = z.strictObject({ schoolYear: schoolYearSchema, force: z.boolean().default(false) });

export const compareQuerySchema = z.object({ compareYear: schoolYearSchema.optional(), steps: z.enum(['all']).optional() });

export const transferSchema = z.strictObject({ formId: idSchema, newOwnerEmail: emailSchema });

// ---- Responses (the server's presenters return exactly these shapes; the web client parses them)

export const answerValueSchema = z.union([z.string(), z.boolean(), tableAnswerSchema, z.null()]);
export const stepAnswersSchema = z.record(z.string(), answerValueSchema);

export const needsUpdateFlagSchema = z.object({
  questionId: z.string(),
  stepKey: z.string(),
  reason: z.enum(NEEDS_UPDATE_REASONS),
  label: z.string(),
});

export const attestationSchema = z.object({ confirmed: z.boolean(), name: z.string(), signedAt: z.string(), signedBy: z.string() });

export const transferRecordSchema = z.object({
  fromUserId: z.string().nullable(),
  fromEmail: z.string().nullable(),
  toUserId: z.string(),
  toEmail: z.string(),
  transferredBy: z.string(),
  transferredAt: z.string(),
});

/** The plan fields every payload carries (lists omit `formData`). */
export const planSummarySchema = z.object({
  _id: z.string(),
  schoolName: z.string(),
  schoolYear: z.string(),
  status: z.enum(PLAN_STATUSES),
  completedSteps: z.array(z.string()),
  locked: z.boolean(),
  userId: z.string().nullable(),
  principalEmail: z.string().nullable(),
  assignedTo: z.string().nullable(),
  sharedWithEmails: z.array(z.string()),
  needsUpdate: z.array(needsUpdateFlagSchema),
  attestation: attestationSchema.nullable(),
  transferHistory: z.array(transferRecordSchema),
  notificationSent: z.boolean(),
  allowEditsWhenArchived: z.boolean(),
  questionBankVersion: z.number().int().nullable(),
  copiedFromId: z.string().nullable(),
  reviewComment: z.string().nullable(),
  reviewedAt: nullableIsoTimeSchema,
  submittedAt: nullableIsoTimeSchema,
  createdAt: isoTimeSchema,
  updatedAt: isoTimeSchema,
});
export type PlanSummary = z.infer<typeof planSummarySchema>;

/** POST /api/forms */
export const createFormResponseSchema = z.object({ success: z.literal(true), formId: z.string(), message: z.string() });
export type CreateFormResponse = z.infer<typeof createFormResponseSchema>;

export const planListSchema = z.object({ forms: z.array(planSummarySchema), total: z.number().int(), page: z.number().int(), limit: z.number().int() });
export type PlanList = z.infer<typeof planListSchema>;

/** A plan in a `view=light` list: counts in place of the review flags and the transfer history. */
export const planListItemSchema = planSummarySchema.omit({ needsUpdate: true, transferHistory: true }).extend({
  /** Review flags still set (answers copied from last year to confirm, questions new or changed). */
  flagsToReview: z.number().int(),
  /** Review comments not yet resolved (open or read). */
  openComments: z.number().int(),
});
export type PlanListItem = z.infer<typeof planListItemSchema>;
export const lightPlanListSchema = planListSchema.extend({ forms: z.array(planListItemSchema) });
export type LightPlanList = z.infer<typeof lightPlanListSchema>;

export const storedStepSchema = z.object({
  completed: z.boolean(),
  data: stepAnswersSchema,
  revisionCount: z.number().int(),
  lastUpdated: nullableIsoTimeSchema,
});
export type StoredStep = z.infer<typeof storedStepSchema>;

export const userPermissionSchema = z.object({
  canRead: z.boolean(),
  canEdit: z.boolean(),
  canReview: z.boolean(),
  canManage: z.boolean(),
  canAttest: z.boolean(),
  /** Shares the plan with the school's staff (the Share dialog). */
  canShare: z.boolean(),
  /** Submits it now: an editor of every step, while its answers may change (a draft, or returned). */
  canSubmit: z.boolean(),
  canSeePresence: z.boolean(),
  /** Replies in the plan's review threads, resolves and reopens them (the reviewers and the plan's editors, while its year is live). */
  canDiscuss: z.boolean(),
  isOwner: z.boolean(),
  isPrincipal: z.boolean(),
  /** Steps the caller may edit when a section-limited share grants it; null = every step. */
  sections: z.array(z.string()).nullable(),
  readSections: z.array(z.string()).nullable(),
  readOnly: z.boolean(),
});
export type UserPermission = z.infer<typeof userPermissionSchema>;

export const replySchema = z.object({
  _id: z.string(),
  body: z.string(),
  authorId: z.string().nullable(),
  authorName: z.string(),
  mentions: z.array(z.string()),
  createdAt: z.string(),
});
export type Reply = z.infer<typeof replySchema>;

/** `fixed` is a resolved thread; `open` and `read` are open ones. */
export const COMMENT_STATUSES = ['open', 'read', 'fixed'] as const;
/** A review comment and its thread: the replies, oldest first, and who resolved it. */
export const commentSchema = z.object({
  _id: z.string(),
  formId: z.string(),
  stepKey: z.string().nullable(),
  questionId: z.string().nullable(),
  comment: z.string(),
  authorId: z.string().nullable(),
  authorName: z.string(),
  status: z.enum(COMMENT_STATUSES),
  createdAt: z.string(),
  updatedAt: z.string(),
  mentions: z.array(z.string()),
  replies: z.array(replySchema),
  resolvedAt: z.string().nullable(),
  resolvedByName: z.string().nullable(),
});
export type Comment = z.infer<typeof commentSchema>;
export const threadListSchema = z.object({ threads: z.array(commentSchema) });
export type ThreadList = z.infer<typeof threadListSchema>;
export const mentionListSchema = z.object({ people: z.array(z.object({ _id: z.string(), name: z.string(), email: z.string() })) });
export type MentionList = z.infer<typeof mentionListSchema>;

export const planShareSchema = z.object({
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  level: z.number().int(),
  permissions: z.enum(['view', 'edit']),
  sections: z.array(z.string()),
});
export type PlanShare = z.infer<typeof planShareSchema>;

/** GET /api/forms/:id */
export const fullPlanSchema = planSummarySchema.extend({
  formData: z.record(z.string(), storedStepSchema),
  stepKeys: z.array(z.string()),
  userPermission: userPermissionSchema,
  collaborationInfo: z.object({
    owner: z.object({ _id: z.string(), name: z.string(), email: z.string() }).nullable(),
    principalEmail: z.string().nullable(),
    assignedTo: z.string().nullable(),
    sharedWithEmails: z.array(z.string()),
    shares: z.array(planShareSchema),
  }),
  comments: z.array(commentSchema),
});
export type FullPlan = z.infer<typeof fullPlanSchema>;

/** GET and PUT /api/forms/:id/step/:n */
export const stepResponseSchema = z.object({
  success: z.literal(true),
  stepKey: z.string(),
  stepNumber: z.number().int(),
  stepData: z.object({ completed: z.boolean(), data: stepAnswersSchema }),
  lastUpdated: nullableIsoTimeSchema,
  revisionCount: z.number().int(),
  conflicts: z.array(z.string()).optional(),
  warning: z.string().optional(),
});
export type StepResponse = z.infer<typeof stepResponseSchema>;

export const personSchema = z.object({ userId: z.string(), name: z.string(), email: z.string() });
export type Person = z.infer<typeof personSchema>;

export const stepLockSchema = z.object({ stepKey: z.string(), lockedBy: personSchema, lockedAt: z.string(), expiresAt: z.string() });
export type StepLock = z.infer<typeof stepLockSchema>;
export const locksResponseSchema = z.object({ locks: z.array(stepLockSchema.extend({ isCurrentUser: z.boolean() })) });
export type LocksResponse = z.infer<typeof locksResponseSchema>;

export const editorSchema = personSchema.extend({ stepKey: z.string().nullable(), lastSeen: z.string() });
export type Editor = z.infer<typeof editorSchema>;
export const editorsResponseSchema = z.object({ editors: z.array(editorSchema) });
export type EditorsResponse = z.infer<typeof editorsResponseSchema>;
/** POST /api/forms/:id/editors/register: the caller's presence and everyone's. */
export const registerEditorResponseSchema = z.object({ success: z.literal(true), editor: editorSchema, editors: z.array(editorSchema) });
export type RegisterEditorResponse = z.infer<typeof registerEditorResponseSchema>;
/** POST /api/forms/:id/step/:n/unlock: whether the caller's lock was released. */
export const unlockResponseSchema = z.object({ success: z.literal(true), released: z.boolean() });
export type UnlockResponse = z.infer<typeof unlockResponseSchema>;

/** 423 from a step save: someone else holds the step lock. */
export const lockedErrorSchema = z.object({ error: z.string(), lockedBy: personSchema, expiresAt: z.string() });
export type LockedError = z.infer<typeof lockedErrorSchema>;
/** 409 from a step save with `reject` (or a lost revision race). */
export const conflictErrorSchema = z.looseObject({
  error: z.string(),
  conflict: z.boolean().optional(),
  conflicts: z.array(z.string()).optional(),
  serverData: stepAnswersSchema.optional(),
  serverRevision: z.number().int().optional(),
  serverLastUpdated: nullableIsoTimeSchema.optional(),
});

export const planUpdateResponseSchema = z.object({ success: z.literal(true), status: z.enum(PLAN_STATUSES).optional(), form: planSummarySchema });
export type PlanUpdateResponse = z.infer<typeof planUpdateResponseSchema>;
/** POST /api/forms/transfer-ownership */
export const transferResponseSchema = z.object({
  success: z.literal(true),
  formId: z.string(),
  userId: z.string().nullable(),
  principalEmail: z.string().nullable(),
  transferHistory: z.array(transferRecordSchema),
});
export type TransferResponse = z.infer<typeof transferResponseSchema>;

/** GET /api/forms/transfer-ownership: principals who can receive a plan. */
export const transferCandidatesSchema = z.object({
  principals: z.array(z.object({ _id: z.string(), name: z.string(), email: z.string(), schoolName: z.string() })),
});
export type TransferCandidates = z.infer<typeof transferCandidatesSchema>;

/** POST /api/forms/:id/share (e-mail shares) */
export const emailShareResponseSchema = z.object({ success: z.literal(true), sharedWithEmails: z.array(z.string()) });
export type EmailShareResponse = z.infer<typeof emailShareResponseSchema>;

export const attestResponseSchema = z.object({ success: z.literal(true), attestation: attestationSchema });
export type AttestResponse = z.infer<typeof attestResponseSchema>;
export const reviewFlagResponseSchema = z.object({ success: z.literal(true), needsUpdate: z.array(needsUpdateFlagSchema) });
export type ReviewFlagResponse = z.infer<typeof reviewFlagResponseSchema>;
export const commentResponseSchema = z.object({ success: z.literal(true), comment: commentSchema });
export type CommentResponse = z.infer<typeof commentResponseSchema>;
export const duplicateResponseSchema = z.object({
  success: z.literal(true),
  formId: z.string(),
  schoolYear: z.string(),
  sourceYear: z.string(),
  message: z.string(),
});
export type DuplicateResponse = z.infer<typeof duplicateResponseSchema>;

export const compareRowSchema = z.object({
  stepKey: z.string(),
  stepTitle: z.string(),
  questionId: z.string(),
  questionNumber: z.string(),
  title: z.string(),
  previousValue: z.string(),
  currentValue: z.string(),
  changed: z.boolean(),
});
export const compareResponseSchema = z.object({
  schoolName: z.string(),
  currentYear: z.string(),
  compareYear: z.string(),
  currentFormId: z.string(),
  previousFormId: z.string().nullable(),
  districtGoals: z.array(districtGoalSchema),
  rows: z.array(compareRowSchema),
  changedCount: z.number().int(),
});
export type CompareResponse = z.infer<typeof compareResponseSchema>;
