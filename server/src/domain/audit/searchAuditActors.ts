import { and, desc, isNotNull, max, sql } from 'drizzle-orm';
import type { AuditActor } from '@csp/shared/api/audit';
import type { Database } from '../../storage/database.ts';
import { auditLogs } from '../../storage/schema.ts';
import { containsPattern } from '../../storage/likePattern.ts';

const ACTOR_MATCHES = 20;

/**
 * People who acted in the audit log whose e-mail (as recorded then) contains `text`, the most
 * recently active first, with their record counts. Deleted users are found too: the record keeps
 * the e-mail.
 */
export async function searchAuditActors(db: Database, text: string): Promise<AuditActor[]> {
  const pattern = containsPattern(text.toLowerCase());
  const rows = await db
    .select({ actorId: auditLogs.actorId, actorEmail: auditLogs.actorEmail, records: sql<number>`count(*)::int` })
    .from(auditLogs)
    .where(and(isNotNull(auditLogs.actorId), isNotNull(auditLogs.actorEmail), text ? sql`lower(${auditLogs.actorEmail}) like ${pattern}` : undefined))
    .groupBy(auditLogs.actorId, auditLogs.actorEmail)
    .orderBy(desc(max(auditLogs.createdAt)))
    .limit(ACTOR_MATCHES);
  return rows.map((row) => ({ actorId: row.actorId!, actorEmail: row.actorEmail!, records: row.records }));
}
