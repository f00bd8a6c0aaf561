import type { DomainServices } from '../domainServices.ts';
import { preparedQueries } from '../../storage/preparedQueries.ts';
import { AppError, notFound } from '../../errors.ts';
import type { PlanRow, ShareRow, UserRow } from '../../storage/rows.ts';
import { planAccess, type PlanAccess } from '../../policy/index.ts';

/** A plan as one actor sees it. */
export interface PlanContext {
  actor: UserRow;
  plan: PlanRow;
  share: ShareRow | null;
  access: PlanAccess;
  yearArchived: boolean;
  /** Writes are allowed: the year is live, or this plan has the live override. */
  writable: boolean;
}

/** A plan with the caller's access to it, in one query; 404 when it does not exist. */
export async function loadPlan({ storage }: Pick<DomainServices, 'storage'>, actor: UserRow, formId: string): Promise<PlanContext> {
  const [row] = await preparedQueries(storage.db).planForUser.execute({ formId, userId: actor.id });
  if (!row) throw notFound('Plan not found');
  return planContextOf(actor, row);
}

/**
 * The plan with the caller's access, or null when it does not exist. Anything else (the database
 * unreachable) is thrown: a live connection must never take a failure to read for "no access".
 */
export async function findPlan(services: Pick<DomainServices, 'storage'>, actor: UserRow, formId: string): Promise<PlanContext | null> {
  try {
    return await loadPlan(services, actor, formId);
  } catch (error) {
    if (error instanceof AppError && error.kind === 'not-found') return null;
    throw error;
  }
}

/** The caller's view of a plan row read with its share and its year's archive flag. */
export function planContextOf(actor: UserRow, row: { plan: PlanRow; share: ShareRow | null; archived: boolean | null }): PlanContext {
  const yearArchived = row.archived ?? false;
  return {
    actor,
    plan: row.plan,
    share: row.share,
    access: planAccess(actor, row.plan, row.share),
    yearArchived,
    writable: !yearArchived || row.plan.allowEditsWhenArchived,
  };
}
