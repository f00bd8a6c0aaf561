import type { DomainServices } from '../domainServices.ts';
import { comments } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { Thread } from '../../storage/rows.ts';
import type { Authorized } from '../../policy/authorize.ts';
import { anchorOf } from './threadAnchor.ts';
import { mentionedPeople } from './mentions.ts';

/**
 * A Super Admin's review comment: the start of a thread at a question, a step or the whole plan.
 * Who hears of it (the step's editors; the people mentioned, as a mention) is the notifications
 * subscriber's business (notifications/planNotifications.ts).
 */
export async function createComment(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'commentOnPlan' | 'writePlan'>,
  input: { comment: string; stepKey?: string | undefined; questionId?: string | undefined; mentions?: string[] | undefined },
): Promise<Thread> {
  const actor = caller.auth.actor;
  const anchor = anchorOf(await services.banks.resolve(context.plan.questionBankVersion), input.stepKey, input.questionId);
  const mentioned = await mentionedPeople(services.storage.db, context, input.mentions ?? [], anchor.stepKey);
  return services.events.transaction(async (tx, record) => {
    const [comment] = await tx
      .insert(comments)
      .values({
        id: newId(),
        formId: context.plan.id,
        stepKey: anchor.stepKey,
        questionId: anchor.questionId,
        comment: input.comment,
        authorId: actor.id,
        authorName: actor.name,
        mentions: mentioned.map((person) => person.id),
      })
      .returning();
    await recordAudit(tx, caller, {
      action: 'comment.create',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { commentId: comment!.id, stepKey: anchor.stepKey, questionId: anchor.questionId },
    });
    const thread = { comment: comment!, replies: [] };
    record({ type: 'comment.created', thread });
    return thread;
  });
}
