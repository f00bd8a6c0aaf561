import { z } from 'zod';
import { auditLogQuerySchema } from './users.ts';

/**
 * The audit log's filters without paging: what the CSV export of a filtered range takes. A range
 * whose start is after its end is refused (it could only ever be empty).
 */
export const auditFilterSchema = auditLogQuerySchema
  .omit({ page: true, limit: true })
  .refine((filter) => !filter.from || !filter.to || startOf(filter.from) <= endOf(filter.to), { message: 'from must not be after to', path: ['from'] });
export type AuditFilter = z.infer<typeof auditFilterSchema>;

/** The instants a filter's `from` and `to` stand for (a bare date as `to` includes that whole day, as the list route reads it). */
export const startOf = (from: string) => Date.parse(from);
export const endOf = (to: string) => Date.parse(to.length === 10 ? `${to}T23:59:59.999Z` : to);

/** One audit record as the API shows it (the log, and a user's trail). */
export const auditRecordSchema = z.object({
  _id: z.string(),
  actorId: z.string().nullable(),
  actorEmail: z.string().nullable(),
  /** The actor's name today; null for the system or a deleted user. */
  actorName: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  /** The target in words: a plan's school and year, a person's name, a school year, a question bank version; null when unknown. */
  targetName: z.string().nullable(),
  summary: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  createdAt: z.string(),
});
export type AuditRecord = z.infer<typeof auditRecordSchema>;

/** `GET /api/users/audit-logs`: one page of the filtered records, newest first, and how many match. */
export const auditLogListSchema = z.object({
  logs: z.array(auditRecordSchema),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
});
export type AuditLogList = z.infer<typeof auditLogListSchema>;

/** `GET /api/admin/audit-logs/actors?q=`: people who appear in the audit log whose e-mail contains `q`. */
export const auditActorsQuerySchema = z.object({ q: z.string().trim().max(254).default('') });
export const auditActorSchema = z.object({ actorId: z.string(), actorEmail: z.string(), records: z.number().int() });
export type AuditActor = z.infer<typeof auditActorSchema>;
export const auditActorListSchema = z.object({ actors: z.array(auditActorSchema) });
export type AuditActorList = z.infer<typeof auditActorListSchema>;

/** The columns of the audit-log CSV export, in order. */
export const AUDIT_CSV_COLUMNS = [
  'Time (UTC)',
  'Actor e-mail',
  'Actor id',
  'Action',
  'Target type',
  'Target id',
  'Details',
  'Client address',
  'Record id',
] as const;

/** What the records are about: the target types the server writes. */
export const AUDIT_TARGET_TYPES = ['plan', 'user', 'questionBank', 'schoolYear'] as const;

/**
 * Action names the server writes, offered as suggestions in the filter (the filter takes any
 * action name: a name missing here is still found).
 */
export const AUDIT_ACTION_SUGGESTIONS = [
  'answer.copied',
  'answer.edited',
  'answer.restored',
  'auth.preview.start',
  'auth.preview.stop',
  'comment.create',
  'comment.fixed',
  'comment.read',
  'district.rollover',
  'plan.attest',
  'plan.create',
  'plan.delete',
  'plan.duplicate',
  'plan.duplicate.fill',
  'plan.email-share',
  'plan.live-override',
  'plan.review',
  'plan.review-flag',
  'plan.rollover',
  'plan.share',
  'plan.submit',
  'plan.transfer',
  'plan.unshare',
  'plan.update',
  'questionBank.discard',
  'questionBank.publish',
  'questionBank.question.activate',
  'questionBank.question.add',
  'questionBank.question.deactivate',
  'questionBank.question.update',
  'questionBank.step.add',
  'questionBank.step.reorder',
  'questionBank.step.update',
  'schoolYear.delete',
  'schoolYear.setup',
  'schoolYear.update',
  'user.bulk.activate',
  'user.bulk.deactivate',
  'user.bulk.delete',
  'user.bulk.level_down',
  'user.bulk.level_up',
  'user.create',
  'user.delete',
  'user.import',
  'user.permissions',
  'user.update',
] as const;
