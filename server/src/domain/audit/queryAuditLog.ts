import { and, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from '../../storage/database.ts';
import { auditLogs, plans, users } from '../../storage/schema.ts';
import { countRows, offsetOf, type Paging } from '../../storage/paging.ts';

export interface AuditQuery {
  actorId?: string | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  page: number;
  limit: number;
}

/** The condition of every given filter (the list and the CSV export read the same records). */
export function auditFilters(query: Omit<AuditQuery, 'page' | 'limit'>): SQL | undefined {
  const filters: SQL[] = [];
  if (query.actorId) filters.push(eq(auditLogs.actorId, query.actorId));
  if (query.action) filters.push(eq(auditLogs.action, query.action));
  if (query.targetType) filters.push(eq(auditLogs.targetType, query.targetType));
  if (query.targetId) filters.push(eq(auditLogs.targetId, query.targetId));
  if (query.from) filters.push(gte(auditLogs.createdAt, new Date(query.from)));
  // A bare date as `to` includes that whole day.
  if (query.to) filters.push(lte(auditLogs.createdAt, new Date(query.to.length === 10 ? `${query.to}T23:59:59.999Z` : query.to)));
  return filters.length ? and(...filters) : undefined;
}

/** Audit records matching every given filter, newest first. */
export function queryAuditLog(db: Database, query: AuditQuery) {
  return auditLogPage(db, auditFilters(query), query);
}

const targetUser = alias(users, 'target_user');
const actor = alias(users, 'actor');
const targetPlan = alias(plans, 'target_plan');
/** A deleted plan is named by what its records kept (creation and deletion record the school and year). */
const recordedPlan = (field: string) => sql`coalesce(${auditLogs.summary} -> 'after' ->> ${field}, ${auditLogs.summary} -> 'before' ->> ${field})`;

/**
 * What a record is about, in words: a plan's school and year, a person's name, a school year, a
 * question bank version. Names are today's (a renamed school shows its new name); null when the
 * target is gone and its records kept no name.
 */
const targetName = sql<string | null>`case ${auditLogs.targetType}
  when 'plan' then coalesce(${targetPlan.schoolName} || ' ' || ${targetPlan.schoolYear}, ${recordedPlan('schoolName')} || ' ' || ${recordedPlan('schoolYear')})
  when 'user' then ${targetUser.name}
  when 'schoolYear' then ${auditLogs.targetId}
  when 'questionBank' then 'Question bank ' || ${auditLogs.targetId}
  end`;

/** One page of the audit records `where` selects, newest first, with their total; each with its actor's and target's names. */
export async function auditLogPage(db: Database, where: SQL | undefined, paging: Paging) {
  const [rows, total] = await Promise.all([
    db
      .select({ record: auditLogs, actorName: actor.name, targetName })
      .from(auditLogs)
      .leftJoin(actor, eq(actor.id, auditLogs.actorId))
      .leftJoin(targetPlan, and(eq(auditLogs.targetType, 'plan'), eq(targetPlan.id, auditLogs.targetId)))
      .leftJoin(targetUser, and(eq(auditLogs.targetType, 'user'), eq(targetUser.id, auditLogs.targetId)))
      .where(where)
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(paging.limit)
      .offset(offsetOf(paging)),
    countRows(db, auditLogs, where),
  ]);
  return { rows, total };
}
