import { and, desc, eq, or, sql } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { auditLogs, users } from '../../storage/schema.ts';

/**
 * Every audit record about one user, newest first: changes to the user alone (`targetId`) and the
 * bulk actions and imports that touched the user among others (their summaries name each user
 * changed or refused, by id, or by e-mail for imports).
 */
export async function userAuditTrail({ storage }: Services, userId: string, paging: { page: number; limit: number }) {
  const [user] = await storage.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  const contains = (fragment: object) => sql`${auditLogs.summary} @> ${JSON.stringify(fragment)}::jsonb`;
  const where = and(
    eq(auditLogs.targetType, 'user'),
    or(
      eq(auditLogs.targetId, userId),
      contains({ changes: [{ userId }] }),
      contains({ refused: [{ userId }] }),
      ...(user ? [contains({ changes: [{ email: user.email }] })] : []),
    ),
  );
  const [rows, [count]] = await Promise.all([
    storage.db
      .select()
      .from(auditLogs)
      .where(where)
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(paging.limit)
      .offset((paging.page - 1) * paging.limit),
    storage.db
      .select({ total: sql<number>`count(*)::int` })
      .from(auditLogs)
      .where(where),
  ]);
  return { rows, total: count?.total ?? 0 };
}
