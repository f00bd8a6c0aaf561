/** The rows the database returns, one type per table the code passes around: domain functions return these, presenters shape them. */
import type {
  answerRevisions,
  commentReplies,
  comments,
  mailMessages,
  notifications,
  planShares,
  planSteps,
  planVersions,
  plans,
  schoolYearSettings,
  users,
} from './schema.ts';

export type UserRow = typeof users.$inferSelect;
export type PlanRow = typeof plans.$inferSelect;
export type ShareRow = typeof planShares.$inferSelect;
export type StepRow = typeof planSteps.$inferSelect;
export type CommentRow = typeof comments.$inferSelect;
export type CommentReplyRow = typeof commentReplies.$inferSelect;
/** A review comment with its replies, oldest first. */
export interface Thread {
  comment: CommentRow;
  replies: CommentReplyRow[];
}
export type NotificationRow = typeof notifications.$inferSelect;
export type MailMessageRow = typeof mailMessages.$inferSelect;
export type YearSettingsRow = typeof schoolYearSettings.$inferSelect;
export type AnswerRevisionRow = typeof answerRevisions.$inferSelect;
export type PlanVersionRow = typeof planVersions.$inferSelect;

/**
 * Row versions (PostgreSQL's `xmin`, new on every write of a row) of what a plan's access was
 * decided on: the plan, the caller's share (null: none) and the plan's year settings (null: none).
 * A step write re-checks them, so it lands only if none of them changed since they were read.
 */
export interface AccessVersions {
  plan: string;
  share: string | null;
  year: string | null;
}
