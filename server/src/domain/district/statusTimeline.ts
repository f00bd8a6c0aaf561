import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { StatusTimeline } from '@csp/shared/api/reports';
import type { BaseDomainServices } from '../domainServices.ts';
import { auditLogs, plans } from '../../storage/schema.ts';

const STATUS_ACTIONS = ['plan.create', 'plan.duplicate', 'plan.submit', 'plan.review'];

/** When each plan of the year was created, submitted and reviewed, and how many are in each status now. */
export async function statusTimeline({ storage }: BaseDomainServices, schoolYear: string): Promise<StatusTimeline> {
  const db = storage.db;
  const [events, counts] = await Promise.all([
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
      .innerJoin(plans, eq(plans.id, auditLogs.targetId))
      .where(and(eq(plans.schoolYear, schoolYear), inArray(auditLogs.action, STATUS_ACTIONS)))
      .orderBy(asc(auditLogs.createdAt)),
    db
      .select({ status: plans.status, count: sql<number>`count(*)::int` })
      .from(plans)
      .where(eq(plans.schoolYear, schoolYear))
      .groupBy(plans.status),
  ]);
  return {
    schoolYear,
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
