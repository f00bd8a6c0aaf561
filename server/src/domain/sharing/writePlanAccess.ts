import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import type { RecordedEvent } from '../events.ts';
import { plans } from '../../storage/schema.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';

export interface PlanAccessChange {
  set: Partial<typeof plans.$inferInsert>;
  action: string;
  before: unknown;
  after: unknown;
  /** What happened, recorded with the change (the plan's open connections are then checked again). */
  event: RecordedEvent;
}

/** Writes plan columns that decide who may do what, with their audit record and event, in one transaction. */
export async function writePlanAccess(services: DomainServices, caller: Caller, context: PlanContext, change: PlanAccessChange): Promise<void> {
  await services.events.transaction(async (tx, record) => {
    await tx
      .update(plans)
      .set({ ...change.set, updatedAt: new Date() })
      .where(eq(plans.id, context.plan.id));
    await recordAudit(tx, caller, {
      action: change.action,
      targetType: 'plan',
      targetId: context.plan.id,
      summary: { before: change.before, after: change.after },
    });
    record(change.event);
  });
}
