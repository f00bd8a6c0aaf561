import type { DomainServices } from '../domain/domainServices.ts';
import { loadPlan, type PlanContext } from '../domain/plans/loadPlan.ts';
import { authorizePlan, type AbilityOn, type Authorized } from '../policy/authorize.ts';
import type { UserRow } from '../storage/rows.ts';

/**
 * How an entry point reaches a plan: loaded as the actor sees it (404 when it does not exist) and
 * authorized for `abilities` (403 with the first refused), the context domain functions require.
 */
export async function loadPlanFor<A extends AbilityOn<PlanContext>>(
  services: Pick<DomainServices, 'storage'>,
  actor: UserRow,
  formId: string,
  abilities: readonly A[],
): Promise<Authorized<PlanContext, A>> {
  return authorizePlan(actor, await loadPlan(services, actor, formId), abilities);
}
