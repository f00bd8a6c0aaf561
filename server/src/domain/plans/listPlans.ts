import { and, asc, desc, eq, exists, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { PlanStatus } from '@csp/shared';
import type { PlanSort } from '@csp/shared/api/forms';
import type { DomainServices } from '../domainServices.ts';

import { comments, planShares, planSteps, plans, schoolYearSettings } from '../../storage/schema.ts';
import { containsPattern } from '../../storage/likePattern.ts';
import { countRows, offsetOf } from '../../storage/paging.ts';
import type { PlanRow, UserRow } from '../../storage/rows.ts';
import type { Database } from '../../storage/database.ts';
import { visiblePlansOf } from '../../policy/index.ts';

export interface PlanListing {
  rows: { plan: PlanRow; completedStepKeys: string[]; yearArchived: boolean; openComments: number }[];
  total: number;
}

/** The plans that are the actor's own: owned, principal of, assigned, e-mail shared or shared. */
function personalPlans(db: Database, actor: UserRow): SQL[] {
  const sharedWithActor = exists(
    db
      .select({ one: sql`1` })
      .from(planShares)
      .where(and(eq(planShares.formId, plans.id), eq(planShares.userId, actor.id))),
  );
  return [
    eq(plans.userId, actor.id),
    eq(plans.principalEmail, actor.email),
    eq(plans.assignedTo, actor.email),
    sql`${plans.sharedWithEmails} @> ${JSON.stringify([actor.email])}::jsonb`,
    sharedWithActor,
  ];
}

/**
 * The plans a user may list, as the policy scopes them (`visiblePlansOf`). Completed step keys
 * come from the step rows in the same query.
 */
export async function listPlans(
  { storage }: DomainServices,
  actor: UserRow,
  query: {
    schoolYear?: string | undefined;
    page: number;
    limit: number;
    status?: PlanStatus | undefined;
    q?: string | undefined;
    sort?: PlanSort | undefined;
    order?: 'asc' | 'desc';
    /** Count each plan's open comments (the light list's `openComments`); 0 otherwise. */
    countOpenComments?: boolean;
  },
): Promise<PlanListing> {
  const filters: SQL[] = [];
  const scope = visiblePlansOf(actor);
  if (!scope.all) filters.push(or(...(scope.schoolName !== null ? [eq(plans.schoolName, scope.schoolName)] : []), ...personalPlans(storage.db, actor))!);
  if (query.schoolYear) filters.push(eq(plans.schoolYear, query.schoolYear));
  if (query.status) filters.push(eq(plans.status, query.status));
  if (query.q) {
    const pattern = containsPattern(query.q);
    filters.push(or(ilike(plans.schoolName, pattern), ilike(plans.principalEmail, pattern))!);
  }
  const where = filters.length ? and(...filters) : undefined;

  const completed = sql<
    string[]
  >`coalesce((select array_agg(${planSteps.stepKey}) from ${planSteps} where ${planSteps.formId} = ${plans.id} and ${planSteps.completed}), '{}')`;
  const openComments = query.countOpenComments
    ? sql<number>`(select count(*)::int from ${comments} where ${comments.formId} = ${plans.id} and ${comments.status} <> 'fixed')`
    : sql<number>`0`;
  const sortColumns: Record<PlanSort, SQL> = {
    school: sql`${plans.schoolName}`,
    principal: sql`coalesce(${plans.principalEmail}, '')`,
    status: sql`${plans.status}`,
    progress: sql`(select count(*) from ${planSteps} where ${planSteps.formId} = ${plans.id} and ${planSteps.completed})`,
    flags: sql`jsonb_array_length(${plans.needsUpdate})`,
    updated: sql`${plans.updatedAt}`,
  };
  const direction = query.order === 'desc' ? desc : asc;
  // The id last: pages never overlap or skip rows when sort values tie.
  const order = query.sort
    ? [direction(sortColumns[query.sort]), asc(plans.schoolName), asc(plans.id)]
    : [desc(plans.schoolYear), asc(plans.schoolName), asc(plans.id)];
  const [rows, total] = await Promise.all([
    storage.db
      .select({ plan: plans, completedStepKeys: completed, archived: schoolYearSettings.archived, openComments })
      .from(plans)
      .leftJoin(schoolYearSettings, eq(schoolYearSettings.schoolYear, plans.schoolYear))
      .where(where)
      .orderBy(...order)
      .limit(query.limit)
      .offset(offsetOf(query)),
    countRows(storage.db, plans, where),
  ]);
  return {
    total,
    rows: rows.map((row) => ({
      plan: row.plan,
      completedStepKeys: row.completedStepKeys,
      yearArchived: row.archived ?? false,
      openComments: row.openComments,
    })),
  };
}
