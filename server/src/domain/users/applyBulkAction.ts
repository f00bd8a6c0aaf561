import { eq, inArray } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { users } from '../../storage/schema.ts';
import { invalidateUserSessions } from '../../auth/sessions.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { BulkAction } from '@csp/shared/api/users';
import type { UserRow } from '../../storage/rows.ts';
import type { Checks } from '../../policy/authorize.ts';

export interface BulkResult {
  userId: string;
  email?: string;
  success: boolean;
  error?: string;
  level?: number;
}

function changeFor(action: BulkAction, target: UserRow): Partial<Pick<UserRow, 'isActive' | 'level'>> | 'delete' {
  switch (action) {
    case 'activate':
      return { isActive: true };
    case 'deactivate':
      return { isActive: false };
    case 'delete':
      return 'delete';
    case 'level_up':
      return { level: Math.min(5, target.level + 1) };
    case 'level_down':
      return { level: Math.max(1, target.level - 1) };
  }
}

/** Applies one action to every id the caller may manage, and reports each id's outcome. */
export async function applyBulkAction(
  services: DomainServices,
  caller: Caller,
  checks: Checks<'manageUser' | 'giveLevel'>,
  userIds: string[],
  action: BulkAction,
): Promise<BulkResult[]> {
  const actor = caller.auth.actor;
  const ids = [...new Set(userIds)];
  const results = await services.events.transaction(async (tx, record) => {
    const targets = new Map((await tx.select().from(users).where(inArray(users.id, ids)).for('update')).map((u) => [u.id, u]));
    const outcome: BulkResult[] = [];
    const changes: { userId: string; email: string; before: Record<string, unknown>; after: Record<string, unknown> | null }[] = [];
    for (const userId of ids) {
      const target = targets.get(userId);
      if (!target) {
        outcome.push({ userId, success: false, error: 'User not found' });
        continue;
      }
      if (userId === actor.id) {
        outcome.push({ userId, success: false, error: 'You cannot change your own account' });
        continue;
      }
      if (!checks.allows('manageUser', target)) {
        outcome.push({ userId, success: false, error: 'Access denied' });
        continue;
      }
      const change = changeFor(action, target);
      if (change === 'delete') {
        await tx.delete(users).where(eq(users.id, userId));
        outcome.push({ userId, email: target.email, success: true });
        changes.push({ userId, email: target.email, before: { level: target.level, isActive: target.isActive, schoolName: target.schoolName }, after: null });
        continue;
      }
      if (change.level !== undefined && change.level !== target.level && !checks.allows('giveLevel', change.level)) {
        outcome.push({ userId, success: false, error: `You cannot promote to level ${change.level}` });
        continue;
      }
      await tx
        .update(users)
        .set({ ...change, updatedAt: new Date() })
        .where(eq(users.id, userId));
      outcome.push({ userId, email: target.email, success: true, ...(change.level !== undefined ? { level: change.level } : {}) });
      changes.push({
        userId,
        email: target.email,
        before: { level: target.level, isActive: target.isActive },
        after: { level: change.level ?? target.level, isActive: change.isActive ?? target.isActive },
      });
    }
    await recordAudit(tx, caller, {
      action: `user.bulk.${action}`,
      targetType: 'user',
      summary: { changes, refused: outcome.filter((r) => !r.success).map((r) => ({ userId: r.userId, error: r.error })) },
    });
    const applied = outcome.filter((r) => r.success).map((r) => r.userId);
    if (applied.length) record({ type: 'users.changed', userIds: applied, endedSessions: [] });
    return outcome;
  });
  if (action === 'deactivate')
    await invalidateUserSessions(
      services,
      results.filter((r) => r.success).map((r) => r.userId),
    );
  return results;
}
