import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { users } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import { invalidateUserSessions } from '../../auth/sessions.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { UserRow } from '../../storage/rows.ts';
import type { Checks } from '../../policy/authorize.ts';

export interface UserChanges {
  level?: number | undefined;
  schoolName?: string | undefined;
  title?: string | undefined;
  isActive?: boolean | undefined;
}

const AUDITED = ['level', 'schoolName', 'title', 'isActive'] as const;

/** Updates a user the caller may manage; deactivation ends the user's sessions at once. */
export async function updateUser(
  services: DomainServices,
  caller: Caller,
  checks: Checks<'manageUser' | 'giveLevel' | 'moveUserToSchool'>,
  userId: string,
  changes: UserChanges,
): Promise<UserRow> {
  const updated = await services.events.transaction(async (tx, record) => {
    const [target] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!target) throw notFound('User not found');
    checks.require('manageUser', target);
    if (changes.level !== undefined) checks.require('giveLevel', changes.level);
    if (changes.schoolName !== undefined) checks.require('moveUserToSchool', changes.schoolName);
    const [row] = await tx
      .update(users)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(users.id, userId))
      .returning();
    const before = Object.fromEntries(AUDITED.filter((k) => changes[k] !== undefined).map((k) => [k, target[k]]));
    const after = Object.fromEntries(AUDITED.filter((k) => changes[k] !== undefined).map((k) => [k, row![k]]));
    await recordAudit(tx, caller, { action: 'user.update', targetType: 'user', targetId: userId, summary: { email: target.email, before, after } });
    record({ type: 'users.changed', userIds: [userId], endedSessions: [] });
    return row!;
  });
  if (!updated.isActive) await invalidateUserSessions(services, [updated.id]);
  return updated;
}
