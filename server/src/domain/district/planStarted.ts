import { and, eq, sql, type SQL } from 'drizzle-orm';
import { planSteps, plans } from '../../storage/schema.ts';

/**
 * The one meaning of "started" (docs/decisions.md, "Started and not started"): a plan is started
 * once someone has saved an answer in it (a step written at least once) or it has left draft. A
 * copy from last year (rollover or duplicate) arrives with answers but no write of its own, so it
 * is not started until the school saves in it. The dashboard's figures, its "Schools not started"
 * list and the public home all count with this condition.
 */
export const planStarted: SQL = sql`(${plans.status} <> 'draft' or exists (select 1 from ${planSteps} where ${planSteps.formId} = ${plans.id} and ${planSteps.revisionCount} > 0))`;

/** The plans of `schoolYear` nobody has started. */
export const notStartedOfYear = (schoolYear: string): SQL => and(eq(plans.schoolYear, schoolYear), sql`not ${planStarted}`)!;
