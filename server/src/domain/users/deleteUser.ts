import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { users } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { Checks } from '../../policy/authorize.ts';

/** Deletes a user the caller may manage (`manageUser` on the row locked for the change); their sessions go with the row (the gate reads it each request). */
export async function deleteUser(services: DomainServices, caller: Caller, checks: Checks<'manageUser'>, userId: string): Promise<void> {
  await services.events.transaction(async (tx, record) => {
    const [target] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!target) throw notFound('User not found');
    checks.require('manageUser', target);
    await tx.delete(users).where(eq(users.id, userId));
    await recordAudit(tx, caller, {
      action: 'user.delete',
      targetType: 'user',
      targetId: userId,
      summary: { before: { email: target.email, level: target.level, schoolName: target.schoolName } },
    });
    record({ type: 'users.changed', userIds: [userId], endedSessions: [] });
  });
}
