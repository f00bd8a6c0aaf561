import { asc, sql } from 'drizzle-orm';
import type { NotStartedList } from '@csp/shared/api/reports';
import type { BaseDomainServices } from '../domainServices.ts';
import { plans } from '../../storage/schema.ts';
import { countRows, offsetOf, type Paging } from '../../storage/paging.ts';
import { notStartedOfYear } from './planStarted.ts';

/** A page of the year's plans nobody has started (planStarted.ts), by school name. */
export async function notStartedPlans({ storage }: BaseDomainServices, schoolYear: string, paging: Paging): Promise<NotStartedList> {
  const where = notStartedOfYear(schoolYear);
  const [rows, total] = await Promise.all([
    storage.db
      .select({ formId: plans.id, schoolName: plans.schoolName, copied: sql<boolean>`${plans.copiedFromId} is not null` })
      .from(plans)
      .where(where)
      .orderBy(asc(plans.schoolName), asc(plans.id))
      .limit(paging.limit)
      .offset(offsetOf(paging)),
    countRows(storage.db, plans, where),
  ]);
  return { plans: rows, total, page: paging.page, limit: paging.limit };
}
