import { and, eq, or, sql } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { auditLogs, users } from '../../storage/schema.ts';
import type { Paging } from '../../storage/paging.ts';
import { auditLogPage } from '../audit/queryAuditLog.ts';

/**
 * One user's history, newest first: what the user did (the answers they edited among it), changes
 * to the user alone (`targetId`), and the bulk actions and imports that touched the user among
 * others (their summaries name each user changed or refused, by id, or by e-mail for imports).
 */
export async function userAuditTrail({ storage }: DomainServices, userId: string, paging: Paging) {
  const [user] = await storage.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  const contains = (fragment: object) => sql`${auditLogs.summary} @> ${JSON.stringify(fragment)}::jsonb`;
  const where = or(
    eq(auditLogs.actorId, userId),
    and(
      eq(auditLogs.targetType, 'user'),
      or(
        eq(auditLogs.targetId, userId),
        contains({ changes: [{ userId }] }),
        contains({ refused: [{ userId }] }),
        ...(user ? [contains({ changes: [{ email: user.email }] })] : []),
      ),
    ),
  );
  return auditLogPage(storage.db, where, paging);
}
