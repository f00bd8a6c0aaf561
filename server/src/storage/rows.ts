/** The rows the database returns, one type per table the code passes around: domain functions return these, presenters shape them. */
import type { auditLogs, comments, notifications, planShares, planSteps, plans, schoolYearSettings, users } from './schema.ts';

export type UserRow = typeof users.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type ShareRow = typeof planShares.$inferSelect;
export type StepRow = typeof planSteps.$inferSelect;
export type CommentRow = typeof comments.$inferSelect;
export type NotificationRow = typeof notifications.$inferSelect;
export type YearSettingsRow = typeof schoolYearSettings.$inferSelect;
export type AuditLogRow = typeof auditLogs.$inferSelect;
