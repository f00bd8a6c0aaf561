import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { NeedsUpdateFlag, Attestation, TransferRecord, Deadline, DistrictGoal } from '@csp/shared/records';
import type { QuestionBank, StepAnswers } from '@csp/shared/questionBank';
import type { MailItemData, MailPreferences } from '@csp/shared/mail';

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });
const id = (name: string) => text(name);
/** Record ids are 24 lowercase hex characters. */
const hexId = (column: AnyPgColumn, table: string) => check(`${table}_id_hex`, sql`${column} ~ '^[0-9a-f]{24}$'`);
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const planStatus = pgEnum('plan_status', ['draft', 'submitted', 'under_review', 'approved', 'rejected']);
export const bankStatus = pgEnum('bank_status', ['draft', 'published', 'archived']);
export const sharePermission = pgEnum('share_permission', ['view', 'edit']);
export const commentStatus = pgEnum('comment_status', ['open', 'read', 'fixed']);

export const users = pgTable(
  'users',
  {
    id: id('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    level: integer('level').notNull(),
    schoolName: text('school_name').notNull().default(''),
    title: text('title'),
    isActive: boolean('is_active').notNull().default(true),
    /** Demo users never sign in; a Super Admin previews the application as one. */
    isDemo: boolean('is_demo').notNull().default(false),
    permissions: jsonb('permissions').$type<Record<string, boolean>>().notNull().default({}),
    /** Set at each completed sign-in; null for someone who has never signed in. */
    lastSignedInAt: timestamp('last_signed_in_at', { withTimezone: true, mode: 'date' }),
    /** How the person gets each kind of e-mail; a kind not named is sent at once. */
    mailPreferences: jsonb('mail_preferences').$type<MailPreferences>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    index('users_school_idx').on(t.schoolName),
    check('users_email_lowercase', sql`${t.email} = lower(${t.email})`),
    check('users_level_range', sql`${t.level} between 1 and 5`),
    hexId(t.id, 'users'),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    /** SHA-256 of the cookie token, hex; acts as the session's `jti`. */
    id: text('id').primaryKey(),
    userId: id('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** While a Super Admin previews a demo user, the demo user's id. */
    previewUserId: id('preview_user_id').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const questionBankVersions = pgTable(
  'question_bank_versions',
  {
    version: integer('version').primaryKey(),
    status: bankStatus('status').notNull(),
    steps: jsonb('steps').$type<QuestionBank['steps']>().notNull(),
    schoolYear: text('school_year'),
    publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('bank_one_published')
      .on(t.status)
      .where(sql`${t.status} = 'published'`),
    uniqueIndex('bank_one_draft')
      .on(t.status)
      .where(sql`${t.status} = 'draft'`),
  ],
);

export const schoolYearSettings = pgTable(
  'school_year_settings',
  {
    schoolYear: text('school_year').primaryKey(),
    archived: boolean('archived').notNull().default(false),
    questionBankVersion: integer('question_bank_version').references(() => questionBankVersions.version),
    deadlines: jsonb('deadlines').$type<Deadline[]>().notNull().default([]),
    districtGoals: jsonb('district_goals').$type<DistrictGoal[]>().notNull().default([]),
    termStart: text('term_start').notNull(),
    termEnd: text('term_end').notNull(),
    /** Deadline reminders go out this many days before a section's due date (and once it is overdue). */
    reminderDaysBefore: integer('reminder_days_before').notNull().default(7),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('school_year_label', sql`${t.schoolYear} ~ '^[0-9]{4}-[0-9]{4}$'`),
    check('school_year_reminder_days', sql`${t.reminderDaysBefore} between 0 and 90`),
  ],
);

export const plans = pgTable(
  'plans',
  {
    id: id('id').primaryKey(),
    schoolName: text('school_name').notNull(),
    schoolYear: text('school_year').notNull(),
    status: planStatus('status').notNull().default('draft'),
    /** The owner. */
    userId: id('user_id').references(() => users.id, { onDelete: 'set null' }),
    principalEmail: text('principal_email'),
    assignedTo: text('assigned_to'),
    sharedWithEmails: jsonb('shared_with_emails').$type<string[]>().notNull().default([]),
    needsUpdate: jsonb('needs_update').$type<NeedsUpdateFlag[]>().notNull().default([]),
    attestation: jsonb('attestation').$type<Attestation | null>(),
    transferHistory: jsonb('transfer_history').$type<TransferRecord[]>().notNull().default([]),
    notificationSent: boolean('notification_sent').notNull().default(false),
    allowEditsWhenArchived: boolean('allow_edits_when_archived').notNull().default(false),
    questionBankVersion: integer('question_bank_version').references(() => questionBankVersions.version),
    /** Set on copies (duplicate, rollover): such a plan needs an attestation before submit. */
    copiedFromId: id('copied_from_id'),
    reviewComment: text('review_comment'),
    reviewedBy: id('reviewed_by'),
    reviewedAt: timestamp('reviewed_at', { withTimezone: true, mode: 'date' }),
    submittedAt: timestamp('submitted_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('plans_school_year_unique').on(t.schoolName, t.schoolYear),
    index('plans_year_idx').on(t.schoolYear),
    index('plans_owner_idx').on(t.userId),
    index('plans_principal_idx').on(t.principalEmail),
    check('plans_school_year_label', sql`${t.schoolYear} ~ '^[0-9]{4}-[0-9]{4}$'`),
    hexId(t.id, 'plans'),
  ],
);

/** One row per plan step, so a save touches one small row under its own revision. */
export const planSteps = pgTable(
  'plan_steps',
  {
    formId: id('form_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    stepKey: text('step_key').notNull(),
    completed: boolean('completed').notNull().default(false),
    data: jsonb('data').$type<StepAnswers>().notNull().default({}),
    /** Revision at which each answer last changed: tells a stale client which fields moved under it. */
    fieldRevisions: jsonb('field_revisions').$type<Record<string, number>>().notNull().default({}),
    /** When each answer last changed (epoch ms): tells a client that sent only `lastUpdated` the same. */
    fieldChangedAt: jsonb('field_changed_at').$type<Record<string, number>>().notNull().default({}),
    revisionCount: integer('revision_count').notNull().default(0),
    lastUpdated: timestamp('last_updated', { withTimezone: true, mode: 'date' }),
    updatedBy: id('updated_by'),
  },
  (t) => [primaryKey({ columns: [t.formId, t.stepKey] }), check('plan_steps_revision_nonnegative', sql`${t.revisionCount} >= 0`)],
);

/** Assignments and shares of a plan with a user (the user's `assignedForms`). */
export const planShares = pgTable(
  'plan_shares',
  {
    formId: id('form_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    userId: id('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    permission: sharePermission('permission').notNull(),
    /** Step keys the share covers; empty means every step. */
    sections: jsonb('sections').$type<string[]>().notNull().default([]),
    sharedBy: id('shared_by'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.formId, t.userId] }), index('plan_shares_user_idx').on(t.userId)],
);

export const comments = pgTable(
  'comments',
  {
    id: id('id').primaryKey(),
    formId: id('form_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    stepKey: text('step_key'),
    questionId: text('question_id'),
    comment: text('comment').notNull(),
    authorId: id('author_id'),
    authorName: text('author_name').notNull(),
    /** `fixed` is a resolved thread. */
    status: commentStatus('status').notNull().default('open'),
    /** Ids of the people the comment mentions. */
    mentions: jsonb('mentions').$type<string[]>().notNull().default([]),
    resolvedBy: id('resolved_by'),
    resolvedByName: text('resolved_by_name'),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('comments_form_idx').on(t.formId), hexId(t.id, 'comments')],
);

/** The replies of a comment's thread, oldest first. */
export const commentReplies = pgTable(
  'comment_replies',
  {
    id: id('id').primaryKey(),
    commentId: id('comment_id')
      .notNull()
      .references(() => comments.id, { onDelete: 'cascade' }),
    formId: id('form_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    body: text('body').notNull(),
    authorId: id('author_id'),
    authorName: text('author_name').notNull(),
    mentions: jsonb('mentions').$type<string[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [index('comment_replies_thread_idx').on(t.commentId, t.createdAt), index('comment_replies_form_idx').on(t.formId), hexId(t.id, 'comment_replies')],
);

export const notifications = pgTable(
  'notifications',
  {
    id: id('id').primaryKey(),
    userId: id('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    formId: id('form_id').references(() => plans.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    message: text('message').notNull(),
    /** Where the notification leads in the web app (a path), e.g. the commented question. */
    link: text('link'),
    createdAt: createdAt(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('notifications_user_idx').on(t.userId, t.createdAt), hexId(t.id, 'notifications')],
);

export const auditLogs = pgTable(
  'audit_logs',
  {
    id: id('id').primaryKey(),
    actorId: id('actor_id'),
    actorEmail: text('actor_email'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    /** Before/after summary of what changed; never plan answers. */
    summary: jsonb('summary').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_created_idx').on(t.createdAt),
    index('audit_actor_idx').on(t.actorId, t.createdAt),
    // A target's records in time order: a plan's status timeline, a user's changes.
    index('audit_target_idx').on(t.targetType, t.targetId, t.createdAt),
    // The actor search groups by e-mail and id and orders by the latest record: read from this index alone.
    index('audit_actor_email_idx').on(t.actorEmail, t.actorId, t.createdAt),
    // A user's history also finds the bulk actions and imports whose summaries name the user.
    index('audit_user_summary_idx')
      .using('gin', sql`${t.summary} jsonb_path_ops`)
      .where(sql`${t.targetType} = 'user'`),
    hexId(t.id, 'audit_logs'),
  ],
);

export const clientErrors = pgTable('client_errors', {
  id: id('id').primaryKey(),
  message: text('message').notNull(),
  stack: text('stack'),
  url: text('url'),
  userAgent: text('user_agent'),
  ip: text('ip'),
  createdAt: createdAt(),
});

export const mailItemState = pgEnum('mail_item_state', ['pending', 'composed', 'skipped']);
export const mailMessageStatus = pgEnum('mail_message_status', ['queued', 'sending', 'sent', 'kept', 'failed', 'in_doubt']);

/**
 * What should reach one person by e-mail because of one event, written in the event's own
 * transaction. `key` names the event and the recipient, so an event never mails a person twice.
 * Pending items become messages: at once, in the person's daily digest, or not at all (`skipped`).
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: id('id').primaryKey(),
    key: text('key').notNull(),
    userId: id('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The preference kind (comments, mentions, ...). */
    kind: text('kind').notNull(),
    /** What happened: the data of one line of mail (names and links, never answers). */
    data: jsonb('data').$type<MailItemData>().notNull(),
    state: mailItemState('state').notNull().default('pending'),
    messageId: id('message_id').references(() => mailMessages.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('mail_outbox_key_unique').on(t.key),
    index('mail_outbox_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.state} = 'pending'`),
    index('mail_outbox_user_idx').on(t.userId, t.state),
    hexId(t.id, 'mail_outbox'),
  ],
);

/**
 * One e-mail as it is sent: rendered once, then claimed by one sender at a time (a lease), so
 * several processes never send it twice. `key` is its idempotency key (an outbox item, or a
 * person's digest of one day) and its Message-ID derives from its id.
 */
export const mailMessages = pgTable(
  'mail_messages',
  {
    id: id('id').primaryKey(),
    key: text('key').notNull(),
    userId: id('user_id').references(() => users.id, { onDelete: 'set null' }),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
    status: mailMessageStatus('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    /** When a sender last handed it to the SMTP server: what the per-minute bound counts. */
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The sender holding the message while it talks to the SMTP server, and until when. */
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('mail_messages_key_unique').on(t.key),
    index('mail_messages_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'queued'`),
    index('mail_messages_status_idx').on(t.status, t.sentAt),
    index('mail_messages_attempt_idx').on(t.lastAttemptAt),
    index('mail_messages_created_idx').on(t.createdAt),
    hexId(t.id, 'mail_messages'),
  ],
);

/** Deadline reminders already given: one per plan, step, due date and moment (before, overdue). */
export const deadlineReminders = pgTable(
  'deadline_reminders',
  {
    formId: id('form_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    stepKey: text('step_key').notNull(),
    dueDate: text('due_date').notNull(),
    moment: text('moment').$type<'before' | 'overdue'>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.formId, t.stepKey, t.dueDate, t.moment] })],
);

/** The district's daily mail run (reminders and digests): one row per day, taken by one process. */
export const dailyMailRuns = pgTable('daily_mail_runs', {
  day: text('day').primaryKey(),
  startedAt: createdAt(),
});

/** Y.js state of one collaborative step document (`plan:<formId>:step:<stepKey>`). */
export const collabDocuments = pgTable('collab_documents', {
  name: text('name').primaryKey(),
  formId: id('form_id')
    .notNull()
    .references(() => plans.id, { onDelete: 'cascade' }),
  state: bytea('state').notNull(),
  updatedAt: updatedAt(),
});

/**
 * What a live document took since it was last stored, appended as it arrives (one statement per
 * 50 ms, collab/writeAhead.ts) and deleted when the document is stored: a process that ends
 * between two stores loses none of what it relayed but its last window.
 */
export const collabUpdates = pgTable(
  'collab_updates',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    update: bytea('update').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('collab_updates_name_idx').on(t.name, t.id)],
);

export const revisionKind = pgEnum('revision_kind', ['edit', 'restore', 'copy']);

/**
 * An answer's history: one row per person's burst of changes to one answer (a later change by the
 * same people soon after extends it), from its value before the burst to its value after.
 */
export const answerRevisions = pgTable(
  'answer_revisions',
  {
    id: id('id').primaryKey(),
    formId: id('form_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    stepKey: text('step_key').notNull(),
    questionId: text('question_id').notNull(),
    kind: revisionKind('kind').notNull(),
    /** Everyone whose changes the burst holds (several people typing one answer live). */
    authorIds: jsonb('author_ids').$type<string[]>().notNull().default([]),
    before: jsonb('before').$type<unknown>(),
    after: jsonb('after').$type<unknown>(),
    /** The step revision that last changed it: revisions of an answer are ordered by it. */
    stepRevision: integer('step_revision').notNull(),
    /** For a restore: the revision whose text was brought back. */
    restoredFromId: id('restored_from_id'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('answer_revisions_question_idx').on(t.formId, t.stepKey, t.questionId, t.stepRevision),
    index('answer_revisions_plan_idx').on(t.formId, t.updatedAt),
    hexId(t.id, 'answer_revisions'),
  ],
);

export const versionKind = pgEnum('version_kind', ['submitted', 'under_review', 'approved', 'returned', 'copied']);

/** A plan's answers as they stood at a decision (a status move, or the copy that began it): never changed after. */
export const planVersions = pgTable(
  'plan_versions',
  {
    id: id('id').primaryKey(),
    formId: id('form_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'cascade' }),
    kind: versionKind('kind').notNull(),
    actorId: id('actor_id'),
    actorName: text('actor_name').notNull(),
    comment: text('comment'),
    /** Every step's answers and completion, by step key. */
    steps: jsonb('steps').$type<Record<string, { data: StepAnswers; completed: boolean }>>().notNull(),
    attestation: jsonb('attestation').$type<Attestation | null>(),
    createdAt: createdAt(),
  },
  (t) => [index('plan_versions_plan_idx').on(t.formId, t.createdAt), hexId(t.id, 'plan_versions')],
);
