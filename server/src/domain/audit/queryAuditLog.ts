import { and, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { auditLogs } from '../../storage/schema.ts';
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

/** One page of the audit records `where` selects, newest first, with their total. */
export async function auditLogPage(db: Database, where: SQL | undefined, paging: Paging) {
  const [rows, total] = await Promise.all([
    db.select().from(auditLogs).where(where).orderBy(desc(auditLogs.createdAt), desc(auditLogs.id)).limit(paging.limit).offset(offsetOf(paging)),
    countRows(db, auditLogs, where),
  ]);
  return { rows, total };
}
