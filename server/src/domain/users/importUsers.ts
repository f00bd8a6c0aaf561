import { inArray } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { importRowSchema, type ImportRow } from '@csp/shared/api/users';
import type { Checks } from '../../policy/authorize.ts';

export interface ImportResult {
  row: number;
  email: string | null;
  status: 'created' | 'updated' | 'error';
  error?: string;
}

/**
 * Creates or updates users row by row (Super Admin). Every row is validated; an invalid row
 * writes nothing and is reported, the valid ones are applied.
 */
export async function importUsers(services: DomainServices, caller: Caller, checks: Checks<'manageUser'>, rows: unknown[]): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  const valid: { row: number; data: ImportRow }[] = [];
  const seen = new Set<string>();
  rows.forEach((raw, row) => {
    const parsed = importRowSchema.safeParse(raw);
    const rawEmail =
      typeof (raw as { email?: unknown })?.email === 'string'
        ? String((raw as { email: string }).email)
            .trim()
            .toLowerCase()
        : null;
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      results.push({ row, email: rawEmail, status: 'error', error: `${issue.path.join('.') || 'row'}: ${issue.message}` });
    } else if (seen.has(parsed.data.email)) {
      results.push({ row, email: parsed.data.email, status: 'error', error: 'Duplicate e-mail in this import' });
    } else {
      seen.add(parsed.data.email);
      valid.push({ row, data: parsed.data });
    }
  });

  const changes: { email: string; before: Record<string, unknown> | null; after: Record<string, unknown> }[] = [];
  const updatedIds: string[] = [];
  await services.events.transaction(async (tx, record) => {
    const emails = valid.map((v) => v.data.email);
    const existing = new Map(emails.length ? (await tx.select().from(users).where(inArray(users.email, emails)).for('update')).map((u) => [u.email, u]) : []);
    for (const { row, data } of valid) {
      const current = existing.get(data.email);
      if (!current) {
        await tx.insert(users).values({ id: newId(), ...data, title: data.title ?? null });
        results.push({ row, email: data.email, status: 'created' });
        changes.push({ email: data.email, before: null, after: { name: data.name, level: data.level, schoolName: data.schoolName } });
      } else if (!checks.allows('manageUser', current)) {
        results.push({ row, email: data.email, status: 'error', error: 'Access denied' });
      } else {
        await tx
          .update(users)
          .set({
            name: data.name,
            level: data.level,
            schoolName: data.schoolName,
            ...(data.title !== undefined ? { title: data.title } : {}),
            updatedAt: new Date(),
          })
          .where(inArray(users.id, [current.id]));
        results.push({ row, email: data.email, status: 'updated' });
        updatedIds.push(current.id);
        changes.push({
          email: data.email,
          before: { name: current.name, level: current.level, schoolName: current.schoolName },
          after: { name: data.name, level: data.level, schoolName: data.schoolName },
        });
      }
    }
    const count = (status: ImportResult['status']) => results.filter((r) => r.status === status).length;
    await recordAudit(tx, caller, {
      action: 'user.import',
      targetType: 'user',
      summary: { rows: rows.length, created: count('created'), updated: count('updated'), errors: count('error'), changes },
    });
    // An updated level or school changes what the user may do now, also in open sessions and editors.
    if (updatedIds.length) record({ type: 'users.changed', userIds: updatedIds, endedSessions: [] });
  });
  return results.sort((a, b) => a.row - b.row);
}
