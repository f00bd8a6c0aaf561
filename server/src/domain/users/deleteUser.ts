import { eq } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { users } from '../../storage/schema.ts';
import { notFound } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { authorize } from '../../policy/index.ts';

/** Deletes a user the caller may manage; their sessions go with the row (the gate reads it each request). */
export async function deleteUser(services: Services, caller: Caller, userId: string): Promise<void> {
  await services.storage.db.transaction(async (tx) => {
    const [target] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!target) throw notFound('User not found');
    authorize(caller.auth.actor, 'manageUser', target);
    await tx.delete(users).where(eq(users.id, userId));
    await recordAudit(tx, caller, {
      action: 'user.delete',
      targetType: 'user',
      targetId: userId,
      summary: { before: { email: target.email, level: target.level, schoolName: target.schoolName } },
    });
  });
  services.realtime.accessChanged({ userIds: [userId] });
}
