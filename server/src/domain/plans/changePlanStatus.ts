import { eq } from 'drizzle-orm';
import type { PlanStatus } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { plans } from '../../storage/schema.ts';
import { invalidInput } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from './loadPlan.ts';
import type { PlanRow } from '../../storage/rows.ts';
import type { Authorized } from '../../policy/authorize.ts';

/** Who moves a plan from one status to another (docs/decisions.md). */
const TRANSITIONS: Record<'submit' | 'review', Partial<Record<PlanStatus, PlanStatus[]>>> = {
  submit: { draft: ['submitted'], rejected: ['submitted'] },
  // "Return for changes" (→ rejected) reopens a plan under review or an approved one.
  review: { submitted: ['under_review'], under_review: ['approved', 'rejected'], approved: ['rejected'] },
};

export interface StatusChange {
  action: 'submit' | 'review';
  status?: PlanStatus | undefined;
  comment?: string | undefined;
}

/**
 * Submit (an editor; a copied plan needs its principal's attestation first) or review (Super Admin).
 * Any move the table does not allow is a 400 naming `from` and `to`.
 */
export async function changePlanStatus(
  services: DomainServices,
  caller: Caller,
  context: Authorized<PlanContext, 'writePlan'> & (Authorized<PlanContext, 'submitPlan'> | Authorized<PlanContext, 'reviewPlan'>),
  change: StatusChange,
): Promise<PlanRow> {
  const { plan } = context;

  const from = plan.status;
  const allowed = TRANSITIONS[change.action][from] ?? [];
  const to = change.status ?? (change.action === 'submit' ? 'submitted' : allowed.length === 1 ? allowed[0] : undefined);
  if (!to || !allowed.includes(to)) {
    throw invalidInput(`Cannot ${change.action} a plan from ${from}${to ? ` to ${to}` : ''}`, { from, to: to ?? null });
  }
  if (change.action === 'submit' && plan.copiedFromId && !plan.attestation?.confirmed) {
    throw invalidInput('Attestation required', { from, to });
  }
  // People are told why their plan came back.
  if (to === 'rejected' && !change.comment?.trim()) throw invalidInput('A reason is required to return a plan for changes', { from, to });

  const now = new Date();
  return services.events.transaction(async (tx, record) => {
    const [updated] = await tx
      .update(plans)
      .set({
        status: to,
        updatedAt: now,
        ...(change.action === 'submit' ? { submittedAt: now } : { reviewedAt: now, reviewedBy: caller.auth.actor.id }),
        ...(change.action === 'review' && change.comment !== undefined ? { reviewComment: change.comment } : {}),
        // A returned plan is attested again before it is resubmitted.
        ...(to === 'rejected' ? { attestation: null } : {}),
      })
      .where(eq(plans.id, plan.id))
      .returning();
    await recordAudit(tx, caller, {
      action: `plan.${change.action}`,
      targetType: 'plan',
      targetId: plan.id,
      summary: { before: { status: from }, after: { status: to } },
    });
    // Who hears of it, in the app and by e-mail: notifications/planNotifications.ts.
    const by = { id: caller.auth.actor.id, name: caller.auth.actor.name };
    record({ type: 'plan.statusChanged', plan: updated!, from, to, action: change.action, comment: change.comment, by });
    return updated!;
  });
}
