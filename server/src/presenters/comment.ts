import type { Comment } from '@csp/shared/api/forms';
import type { Notification } from '@csp/shared/api/notifications';
import type { CommentRow, NotificationRow } from '../storage/rows.ts';

export function presentComment(row: CommentRow): Comment {
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
  };
}

export function presentNotification(row: NotificationRow): Notification {
  return {
    _id: row.id,
    formId: row.formId,
    kind: row.kind,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt ? row.readAt.toISOString() : null,
  };
}
