import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { commentReplies, comments } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { Thread } from '../../storage/rows.ts';
import type { Authorized } from '../../policy/authorize.ts';
import { mentionedPeople } from './mentions.ts';
import { loadThread } from './threads.ts';

/**
 * A reply in a thread, by a reviewer or an editor of the plan. A reply to a resolved thread opens
 * it again. The thread's earlier writers and the step's editors hear of it (those mentioned, as a
 * mention): notifications/planNotifications.ts.
 */
export async function replyToThread(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'replyToThread' | 'writePlan'>,
  commentId: string,
  input: { body: string; mentions?: string[] | undefined },
): Promise<Thread> {
  const db = services.storage.db;
  const actor = caller.auth.actor;
  const before = await loadThread(db, context, commentId);
  const mentioned = await mentionedPeople(db, context, input.mentions ?? [], before.comment.stepKey);
  return services.events.transaction(async (tx, record) => {
    const [reply] = await tx
      .insert(commentReplies)
      .values({
        id: newId(),
        commentId,
        formId: context.plan.id,
        body: input.body,
        authorId: actor.id,
        authorName: actor.name,
        mentions: mentioned.map((p) => p.id),
      })
      .returning();
    const reopened = before.comment.status === 'fixed' ? { status: 'open' as const, resolvedBy: null, resolvedByName: null, resolvedAt: null } : {};
    const [comment] = await tx
      .update(comments)
      .set({ updatedAt: new Date(), ...reopened })
      .where(eq(comments.id, commentId))
      .returning();
    await recordAudit(tx, caller, { action: 'comment.reply', targetType: 'plan', targetId: context.plan.id, summary: { commentId, replyId: reply!.id } });
    const thread = { comment: comment!, replies: [...before.replies, reply!] };
    record({ type: 'comment.replied', thread, reply: reply! });
    return thread;
  });
}
