import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { offsetOf, type Paging } from '../../storage/paging.ts';
import type { StatusTimeline } from '@csp/shared/api/reports';
import type { BaseDomainServices } from '../domainServices.ts';
import { auditLogs, plans } from '../../storage/schema.ts';

const STATUS_ACTIONS = ['plan.create', 'plan.duplicate', 'plan.rollover', 'plan.submit', 'plan.review'];

/** A page of when each plan of the year was created (or copied), submitted and reviewed, oldest first, and how many are in each status now. */
export async function statusTimeline({ storage }: BaseDomainServices, schoolYear: string, paging: Paging): Promise<StatusTimeline> {
  const db = storage.db;
  // The plan's id with its type: the records are found through the target index.
  const ofPlan = and(eq(auditLogs.targetType, 'plan'), eq(plans.id, auditLogs.targetId));
  const ofYear = and(eq(plans.schoolYear, schoolYear), inArray(auditLogs.action, STATUS_ACTIONS));
  const [events, [total], counts] = await Promise.all([
    db
      .select({
        at: auditLogs.createdAt,
        action: auditLogs.action,
        formId: auditLogs.targetId,
        schoolName: plans.schoolName,
        summary: auditLogs.summary,
        actorEmail: auditLogs.actorEmail,
      })
      .from(auditLogs)
      .innerJoin(plans, ofPlan)
      .where(ofYear)
      .orderBy(asc(auditLogs.createdAt), asc(auditLogs.id))
      .limit(paging.limit)
      .offset(offsetOf(paging)),
    db
      .select({ count: sql<number>`count(*)::int` })
      .from(auditLogs)
      .innerJoin(plans, ofPlan)
      .where(ofYear),
    db
      .select({ status: plans.status, count: sql<number>`count(*)::int` })
      .from(plans)
      .where(eq(plans.schoolYear, schoolYear))
      .groupBy(plans.status),
  ]);
  return {
    schoolYear,
    total: total?.count ?? 0,
    page: paging.page,
    limit: paging.limit,
    statusCounts: Object.fromEntries(counts.map((row) => [row.status, row.count])),
    events: events.map((event) => {
      const summary = event.summary as { before?: { status?: string }; after?: { status?: string } };
      return {
        at: event.at.toISOString(),
        action: event.action,
        formId: event.formId,
        schoolName: event.schoolName,
        from: summary.before?.status ?? null,
        to: summary.after?.status ?? (event.action === 'plan.submit' ? 'submitted' : 'draft'),
        actorEmail: event.actorEmail,
      };
    }),
  };
}
