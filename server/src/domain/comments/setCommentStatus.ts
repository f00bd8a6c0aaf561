import { and, eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { comments } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';

import type { CommentRow } from '../../storage/rows.ts';
import { authorize } from '../../policy/index.ts';

/** Marks a comment read or fixed: an editor of the plan or a Super Admin. */
export async function setCommentStatus(
  services: DomainServices,
  caller: Caller,
  context: PlanContext,
  commentId: string,
  status: 'read' | 'fixed',
): Promise<CommentRow> {
  authorize(caller.auth.actor, 'setCommentStatus', context);
  authorize(context.actor, 'writePlan', context);
  return services.events.transaction(async (tx, record) => {
    const [updated] = await tx
      .update(comments)
      .set({ status, updatedAt: new Date() })
      .where(and(eq(comments.id, commentId), eq(comments.formId, context.plan.id)))
      .returning();
    if (!updated) throw notFound('Comment not found');
    await recordAudit(tx, caller, { action: `comment.${status}`, targetType: 'plan', targetId: context.plan.id, summary: { commentId } });
    record({ type: 'comment.statusChanged', comment: updated });
    return updated;
  });
}
