import type { DomainServices } from '../domainServices.ts';
import type { Caller } from '../audit/recordAudit.ts';
import type { PlanContext } from '../plans/loadPlan.ts';
import { writePlanAccess } from './writePlanAccess.ts';
import type { Authorized } from '../../policy/authorize.ts';

/** Super Admin: makes one plan of an archived year editable (`live: true`) or read-only again. */
export async function setLiveOverride(
  services: DomainServices,
  caller: Authorized<Caller, 'administerDistrict'>,
  context: PlanContext,
  live: boolean,
): Promise<void> {
  await writePlanAccess(services, caller, context, {
    set: { allowEditsWhenArchived: live },
    action: 'plan.live-override',
    before: context.plan.allowEditsWhenArchived,
    after: live,
    event: { type: 'plan.liveOverrideSet', formId: context.plan.id, live },
  });
}
