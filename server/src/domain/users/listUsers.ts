import { and, asc, eq, ilike, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { planShares, users } from '../../storage/schema.ts';
import type { UserRow } from '../../auth/sessions.ts';
import type { AssignedForm } from '../../presenters/user.ts';

export interface UserListing {
  users: { user: UserRow; assignedForms: AssignedForm[] }[];
  total: number;
}

/** The users an administrator sees (everyone for a Super Admin; own school below 5 for a principal), paged. */
export async function listUsers(
  { storage }: Services,
  actor: UserRow,
  query: { page: number; limit: number; schoolName?: string | undefined; q?: string | undefined },
): Promise<UserListing> {
  const filters: SQL[] = [];
  if (actor.level < 5) filters.push(eq(users.schoolName, actor.schoolName), lt(users.level, 5));
  if (query.schoolName) filters.push(eq(users.schoolName, query.schoolName));
  if (query.q) {
    const pattern = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    filters.push(or(ilike(users.email, pattern), ilike(users.name, pattern))!);
  }
  const where = filters.length ? and(...filters) : undefined;
  const [rows, [count]] = await Promise.all([
    storage.db
      .select()
      .from(users)
      .where(where)
      .orderBy(asc(users.schoolName), asc(users.email))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    storage.db
      .select({ total: sql<number>`count(*)::int` })
      .from(users)
      .where(where),
  ]);
  const shares = rows.length
    ? await storage.db
        .select()
        .from(planShares)
        .where(
          inArray(
            planShares.userId,
            rows.map((u) => u.id),
          ),
        )
    : [];
  return {
    total: count?.total ?? 0,
    users: rows.map((user) => ({
      user,
      assignedForms: shares
        .filter((share) => share.userId === user.id)
        .map((share) => ({ formId: share.formId, permissions: share.permission, sections: share.sections })),
    })),
  };
}
