import { eq } from 'drizzle-orm';
import type { Services } from '../../services.ts';
import { invalidInput, notFound } from '../../errors.ts';
import { sessions, users } from '../../storage/schema.ts';
import type { UserRow } from '../../storage/rows.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { authorize } from '../../policy/index.ts';

/**
 * A Super Admin starts seeing the app as a demo user: the session's preview and its audit record
 * are written together, then open connections re-check what the session may see.
 */
export async function startRolePreview(services: Services, caller: Caller, userId: string): Promise<UserRow> {
  const { auth } = caller;
  authorize(auth.user, 'previewAs');
  const target = await services.storage.db.transaction(async (tx) => {
    const [row] = await tx.select().from(users).where(eq(users.id, userId)).limit(1);
    if (!row) throw notFound('User not found');
    if (!row.isDemo) throw invalidInput('Only demo users can be previewed');
    await tx.update(sessions).set({ previewUserId: row.id }).where(eq(sessions.id, auth.sessionId));
    await recordAudit(tx, caller, {
      action: 'auth.preview.start',
      targetType: 'user',
      targetId: row.id,
      summary: { previewEmail: row.email, previewLevel: row.level },
    });
    return row;
  });
  services.realtime.accessChanged({ sessionIds: [auth.sessionId] });
  return target;
}

/** Back to the signed-in user's own view (recorded only when a preview was on). */
export async function stopRolePreview(services: Services, caller: Caller): Promise<void> {
  const { auth } = caller;
  await services.storage.db.transaction(async (tx) => {
    await tx.update(sessions).set({ previewUserId: null }).where(eq(sessions.id, auth.sessionId));
    if (auth.previewing) await recordAudit(tx, caller, { action: 'auth.preview.stop', targetType: 'user', targetId: auth.actor.id });
  });
  services.realtime.accessChanged({ sessionIds: [auth.sessionId] });
}
