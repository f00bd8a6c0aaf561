import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { users } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { UserRow } from '../../storage/rows.ts';
import type { Checks } from '../../policy/authorize.ts';

/** Sets known collaboration flags on a user (only those flags: never other fields of the record). */
export async function setUserPermissions(
  services: DomainServices,
  caller: Caller,
  checks: Checks<'manageUser'>,
  userId: string,
  flags: Record<string, boolean | undefined>,
): Promise<UserRow> {
  return services.events.transaction(async (tx, record) => {
    const [target] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!target) throw notFound('User not found');
    checks.require('manageUser', target);
    const set = Object.fromEntries(Object.entries(flags).filter((entry): entry is [string, boolean] => entry[1] !== undefined));
    const permissions = { ...target.permissions, ...set };
    const [row] = await tx.update(users).set({ permissions, updatedAt: new Date() }).where(eq(users.id, userId)).returning();
    await recordAudit(tx, caller, {
      action: 'user.permissions',
      targetType: 'user',
      targetId: userId,
      summary: { before: target.permissions, after: permissions },
    });
    record({ type: 'users.changed', userIds: [userId], endedSessions: [] });
    return row!;
  });
}
