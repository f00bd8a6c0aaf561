import { and, asc, desc, eq, ilike, inArray, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { planShares, users } from '../../storage/schema.ts';

import type { AssignedForm } from '@csp/shared/api/users';
import type { UserSort } from '@csp/shared/api/users';
import { containsPattern } from '../../storage/likePattern.ts';
import type { UserRow } from '../../storage/rows.ts';
import { visibleUsersOf } from '../../policy/index.ts';
import { countRows, offsetOf, type Paging } from '../../storage/paging.ts';

export interface UserListing {
  users: { user: UserRow; assignedForms: AssignedForm[] }[];
  total: number;
}

export interface UserListQuery extends Paging {
  schoolName?: string | undefined;
  q?: string | undefined;
  level?: number | undefined;
  active?: boolean | undefined;
  neverSignedIn?: boolean | undefined;
  sort?: UserSort | undefined;
  order?: 'asc' | 'desc' | undefined;
}

/** Who an administrator may see at all, as the policy says (`visibleUsersOf`). */
function scopeOf(actor: UserRow): SQL[] {
  const scope = visibleUsersOf(actor);
  return scope ? [eq(users.schoolName, scope.schoolName), lt(users.level, scope.belowLevel)] : [];
}

const SORT_COLUMNS = {
  name: users.name,
  email: users.email,
  level: users.level,
  schoolName: users.schoolName,
  isActive: users.isActive,
  lastSignedInAt: users.lastSignedInAt,
  createdAt: users.createdAt,
} as const;

/** The users an administrator sees, filtered inside that scope (filters only narrow it), paged. */
export async function listUsers({ storage }: DomainServices, actor: UserRow, query: UserListQuery): Promise<UserListing> {
  const filters: SQL[] = scopeOf(actor);
  if (query.schoolName) filters.push(eq(users.schoolName, query.schoolName));
  if (query.q) {
    const pattern = containsPattern(query.q);
    filters.push(or(ilike(users.email, pattern), ilike(users.name, pattern))!);
  }
  if (query.level !== undefined) filters.push(eq(users.level, query.level));
  if (query.active !== undefined) filters.push(eq(users.isActive, query.active));
  if (query.neverSignedIn !== undefined) filters.push(query.neverSignedIn ? isNull(users.lastSignedInAt) : isNotNull(users.lastSignedInAt));
  const where = filters.length ? and(...filters) : undefined;
  const direction = query.order === 'desc' ? desc : asc;
  // Never-signed-in users sort as the oldest sign-ins; e-mail (unique) makes every order total, so pages never overlap.
  const order = query.sort
    ? [
        query.sort === 'lastSignedInAt'
          ? sql`${users.lastSignedInAt} ${sql.raw(query.order === 'desc' ? 'desc nulls last' : 'asc nulls first')}`
          : direction(SORT_COLUMNS[query.sort]),
        asc(users.email),
      ]
    : [asc(users.schoolName), asc(users.email)];
  const [rows, total] = await Promise.all([
    storage.db
      .select()
      .from(users)
      .where(where)
      .orderBy(...order)
      .limit(query.limit)
      .offset(offsetOf(query)),
    countRows(storage.db, users, where),
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
    total,
    users: rows.map((user) => ({
      user,
      assignedForms: shares
        .filter((share) => share.userId === user.id)
        .map((share) => ({ formId: share.formId, permissions: share.permission, sections: share.sections })),
    })),
  };
}

/** The schools an administrator may filter by: every school with users for a Super Admin, the own school for a principal. */
export async function listUserSchools({ storage }: DomainServices, actor: UserRow): Promise<string[]> {
  const scope = visibleUsersOf(actor);
  if (scope) return [scope.schoolName];
  const rows = await storage.db.selectDistinct({ schoolName: users.schoolName }).from(users).orderBy(asc(users.schoolName));
  return rows.map((row) => row.schoolName).filter((name) => name !== '');
}
