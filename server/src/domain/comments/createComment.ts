import type { DomainServices } from '../domainServices.ts';
import { comments } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { notifyPlanPeople } from '../notifications/notifyPlanPeople.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import type { CommentRow } from '../../storage/rows.ts';
import { authorize } from '../../policy/index.ts';

/** A Super Admin's review comment; the plan's owner and principal get a ping. */
export async function createComment(
  services: DomainServices,
  caller: Caller,
  context: PlanContext,
  input: { comment: string; stepKey?: string | undefined; questionId?: string | undefined },
): Promise<CommentRow> {
  authorize(caller.auth.actor, 'commentOnPlan', context);
  authorize(context.actor, 'writePlan', context);
  const actor = caller.auth.actor;
  return services.events.transaction(async (tx, record) => {
    const [comment] = await tx
      .insert(comments)
      .values({
        id: newId(),
        formId: context.plan.id,
        stepKey: input.stepKey ?? null,
        questionId: input.questionId ?? null,
        comment: input.comment,
        authorId: actor.id,
        authorName: actor.name,
      })
      .returning();
    await recordAudit(tx, caller, {
      action: 'comment.create',
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { commentId: comment!.id, stepKey: input.stepKey ?? null },
    });
    record({ type: 'comment.created', comment: comment! });
    const where = input.stepKey ? ` on ${input.stepKey}` : '';
    await notifyPlanPeople(tx, record, context.plan, 'comment', `New review comment${where} for ${context.plan.schoolName} ${context.plan.schoolYear}`);
    return comment!;
  });
}
