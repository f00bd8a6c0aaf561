import { eq } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { invalidInput, notFound } from '../../errors.ts';
import { sessions, users } from '../../storage/schema.ts';
import type { UserRow } from '../../storage/rows.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { Authorized } from '../../policy/authorize.ts';

/**
 * A Super Admin starts seeing the app as a demo user: the session's preview and its audit record
 * are written together, then open connections re-check what the session may see.
 */
export async function startRolePreview(services: DomainServices, caller: Authorized<Caller, 'previewAs'>, userId: string): Promise<UserRow> {
  const { auth } = caller;
  return services.events.transaction(async (tx, record) => {
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
    record({ type: 'session.previewChanged', sessionId: auth.sessionId, previewUserId: row.id });
    return row;
  });
}

/** Back to the signed-in user's own view (recorded only when a preview was on). */
export async function stopRolePreview(services: DomainServices, caller: Caller): Promise<void> {
  const { auth } = caller;
  await services.events.transaction(async (tx, record) => {
    await tx.update(sessions).set({ previewUserId: null }).where(eq(sessions.id, auth.sessionId));
    if (auth.previewing) await recordAudit(tx, caller, { action: 'auth.preview.stop', targetType: 'user', targetId: auth.actor.id });
    record({ type: 'session.previewChanged', sessionId: auth.sessionId, previewUserId: null });
  });
}
