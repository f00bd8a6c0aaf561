import { and, eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { comments } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { Thread } from '../../storage/rows.ts';
import type { Authorized } from '../../policy/authorize.ts';
import { loadThread } from './threads.ts';

/** `read`, `fixed` (resolved) or `open` (reopened), as the audit log names each. */
const AUDIT_ACTION = { read: 'comment.read', fixed: 'comment.fixed', open: 'comment.reopen' } as const;

/**
 * Marks a thread read, resolves it (`fixed`) or reopens it (`open`): an editor of the plan (the
 * school, for the threads on its own plan) or a Super Admin. Resolving records who and when.
 */
export async function setCommentStatus(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'setCommentStatus' | 'writePlan'>,
  commentId: string,
  status: 'read' | 'fixed' | 'open',
): Promise<Thread> {
  const { replies } = await loadThread(services.storage.db, context, commentId);
  const actor = caller.auth.actor;
  const resolution =
    status === 'fixed'
      ? { resolvedBy: actor.id, resolvedByName: actor.name, resolvedAt: new Date() }
      : status === 'open'
        ? { resolvedBy: null, resolvedByName: null, resolvedAt: null }
        : {};
  return services.events.transaction(async (tx, record) => {
    const [comment] = await tx
      .update(comments)
      .set({ status, updatedAt: new Date(), ...resolution })
      .where(and(eq(comments.id, commentId), eq(comments.formId, context.plan.id)))
      .returning();
    await recordAudit(tx, caller, { action: AUDIT_ACTION[status], targetType: 'plan', targetId: context.plan.id, summary: { commentId } });
    const thread = { comment: comment!, replies };
    record({ type: 'comment.statusChanged', thread });
    return thread;
  });
}
