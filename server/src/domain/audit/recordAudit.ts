import type { Database } from '../../storage/database.ts';
import type { Auth } from '../../auth/auth.ts';
import { auditLogs } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';

/** Who acts, from where: the signed-in user, and the previewed demo user when previewing. */
export interface Caller {
  auth: Auth;
  ip: string;
}

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId?: string | null;
  /** What changed, before and after; never plan answers. */
  summary?: Record<string, unknown>;
}

/** Writes one audit record; pass the transaction of the change so both land or neither. */
export async function recordAudit(db: Database, caller: Caller | null, entry: AuditEntry): Promise<void> {
  await recordAudits(db, caller, [entry]);
}

/** Writes the records of a bulk operation's items in one statement (a rollover's created plans). */
export async function recordAudits(db: Database, caller: Caller | null, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const auth = caller?.auth;
  await db.insert(auditLogs).values(
    entries.map((entry) => ({
      id: newId(),
      actorId: auth?.user.id ?? null,
      actorEmail: auth?.user.email ?? null,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId ?? null,
      summary: auth?.previewing ? { ...entry.summary, previewAs: auth.actor.email } : (entry.summary ?? {}),
      ip: caller?.ip ?? null,
    })),
  );
}
