import type { Comment, Reply } from '@csp/shared/api/forms';
import type { Notification } from '@csp/shared/api/notifications';
import type { CommentReplyRow, NotificationRow, Thread } from '../storage/rows.ts';

function presentReply(row: CommentReplyRow): Reply {
  return { _id: row.id, body: row.body, authorId: row.authorId, authorName: row.authorName, mentions: row.mentions, createdAt: row.createdAt.toISOString() };
}

/** A review comment with its thread. */
export function presentComment({ comment: row, replies }: Thread): Comment {
  return {
    _id: row.id,
    formId: row.formId,
    stepKey: row.stepKey,
    questionId: row.questionId,
    comment: row.comment,
    authorId: row.authorId,
    authorName: row.authorName,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    mentions: row.mentions,
    replies: replies.map(presentReply),
    resolvedAt: row.resolvedAt ? row.resolvedAt.toISOString() : null,
    resolvedByName: row.resolvedByName,
  };
}

export function presentNotification(row: NotificationRow): Notification {
  return {
    _id: row.id,
    formId: row.formId,
    kind: row.kind,
    message: row.message,
    link: row.link,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt ? row.readAt.toISOString() : null,
  };
}
