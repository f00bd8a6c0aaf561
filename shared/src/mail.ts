import { z } from 'zod';

/** The kinds of e-mail a person chooses about, each on its own (the profile page, unsubscribe links). */
export const MAIL_KINDS = ['comments', 'mentions', 'decisions', 'submissions', 'sharing', 'reminders'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

export const MAIL_KIND_LABELS: Record<MailKind, { label: string; description: string }> = {
  comments: { label: 'Review comments and replies', description: 'A reviewer comments on a plan you work on, or someone replies in a thread you are part of.' },
  mentions: { label: 'Mentions', description: 'Someone mentions you in a comment or a reply.' },
  decisions: { label: 'Review decisions', description: 'A plan you work on is approved or returned for changes.' },
  submissions: { label: 'Plans submitted for review', description: 'A school submits its plan (for reviewers).' },
  sharing: { label: 'Sharing and ownership', description: 'A plan is shared with you, or its ownership is transferred to you.' },
  reminders: { label: 'Deadline reminders', description: 'A section of your school’s plan is due soon or overdue (at most one e-mail a day).' },
};

/** At once, gathered into one e-mail a day, or not at all. */
export const MAIL_DELIVERIES = ['immediate', 'digest', 'off'] as const;
export type MailDelivery = (typeof MAIL_DELIVERIES)[number];
export const MAIL_DELIVERY_LABELS: Record<MailDelivery, string> = { immediate: 'Immediately', digest: 'Daily digest', off: 'Off' };

/** What an unsubscribe link turns off: one kind, or (from a digest) every kind delivered in digests. */
export const UNSUBSCRIBE_KINDS = [...MAIL_KINDS, 'digest'] as const;
export type UnsubscribeKind = (typeof UNSUBSCRIBE_KINDS)[number];

export type MailPreferences = Partial<Record<MailKind, MailDelivery>>;
/** A kind a person has not chosen about is sent at once. */
export const deliveryOf = (preferences: MailPreferences, kind: MailKind): MailDelivery => preferences[kind] ?? 'immediate';

/** The plan an e-mail is about, by name: the school and its year. */
export interface MailPlan {
  formId: string;
  schoolName: string;
  schoolYear: string;
}

/** A section of a plan that is due soon or overdue. */
export interface ReminderSection {
  title: string;
  dueDate: string;
  overdue: boolean;
}

/**
 * What one line of e-mail says about one event: names, where, and a link into the app (a path).
 * Never answer or comment text: those may hold student information.
 */
/** Where in a plan a thread is: `short` as in "2c", `full` as in "2c. Who is the designated liaison…". */
export interface MailWhere {
  short: string;
  full: string;
}

export type MailItemData =
  | { type: 'comment' | 'reply' | 'mention'; plan: MailPlan; actorName: string; where: MailWhere; link: string }
  | { type: 'plan_returned' | 'plan_approved' | 'plan_submitted' | 'ownership_transferred'; plan: MailPlan; actorName: string; link: string }
  | { type: 'plan_shared'; plan: MailPlan; actorName: string; permission: 'view' | 'edit'; link: string }
  | { type: 'deadline_reminder'; plans: { plan: MailPlan; link: string; sections: ReminderSection[] }[] };
export type MailItemType = MailItemData['type'];

/** Which preference decides about each kind of event. */
export const MAIL_KIND_OF: Record<MailItemType, MailKind> = {
  comment: 'comments',
  reply: 'comments',
  mention: 'mentions',
  plan_returned: 'decisions',
  plan_approved: 'decisions',
  plan_submitted: 'submissions',
  plan_shared: 'sharing',
  ownership_transferred: 'sharing',
  deadline_reminder: 'reminders',
};

// ---- API

const deliverySchema = z.enum(MAIL_DELIVERIES);
export const mailPreferencesSchema = z.strictObject(
  Object.fromEntries(MAIL_KINDS.map((kind) => [kind, deliverySchema.optional()])) as Record<MailKind, z.ZodOptional<typeof deliverySchema>>,
);

/** `GET`/`PUT /api/profile/mail`: every kind with its delivery (the default filled in). */
export const mailSettingsSchema = z.object({
  email: z.string(),
  preferences: z.object(Object.fromEntries(MAIL_KINDS.map((kind) => [kind, deliverySchema])) as Record<MailKind, typeof deliverySchema>),
});
export type MailSettings = z.infer<typeof mailSettingsSchema>;

/** `POST /api/mail/unsubscribe/:token`: what was turned off, for whom. */
export const unsubscribeResponseSchema = z.object({
  success: z.literal(true),
  kind: z.enum(UNSUBSCRIBE_KINDS),
  /** The kinds now off. */
  turnedOff: z.array(z.enum(MAIL_KINDS)),
  email: z.string(),
});
export type UnsubscribeResponse = z.infer<typeof unsubscribeResponseSchema>;

/** One message of the development mailbox (`GET /api/dev/mailbox`). */
export const mailboxMessageSchema = z.object({
  _id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  headers: z.record(z.string(), z.string()),
  status: z.string(),
  createdAt: z.string(),
});
export type MailboxMessage = z.infer<typeof mailboxMessageSchema>;
export const mailboxSchema = z.object({ messages: z.array(mailboxMessageSchema), total: z.number().int() });
export type Mailbox = z.infer<typeof mailboxSchema>;

/** The outbound mail of the district, for the System page. */
export const mailHealthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  /** smtp: sent through SMTP_URL; mailbox: kept for the development mailbox; held: production without SMTP_URL. */
  transport: z.enum(['smtp', 'mailbox', 'held']),
  pendingItems: z.number().int(),
  queued: z.number().int(),
  sending: z.number().int(),
  sentLastDay: z.number().int(),
  failed: z.number().int(),
  inDoubt: z.number().int(),
  ratePerMinute: z.number().int(),
  recentFailures: z.array(
    z.object({
      _id: z.string(),
      to: z.string(),
      subject: z.string(),
      status: z.string(),
      attempts: z.number().int(),
      lastError: z.string().nullable(),
      at: z.string(),
    }),
  ),
});
export type MailHealth = z.infer<typeof mailHealthSchema>;
