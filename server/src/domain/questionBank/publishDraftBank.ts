import { eq } from 'drizzle-orm';
import { questionBankSchema, schoolYearTerm } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { questionBankVersions, schoolYearSettings } from '../../storage/schema.ts';
import { invalidInput } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';

/**
 * Publish: the published version is archived, the draft becomes published (optionally pinned to a
 * school year), and a new draft is cloned from it.
 */
export async function publishDraftBank(
  services: DomainServices,
  caller: Caller,
  schoolYear: string | undefined,
): Promise<{ version: number; draftVersion: number }> {
  const db = services.storage.db;
  const result = await db.transaction(async (tx) => {
    const [draft] = await tx.select().from(questionBankVersions).where(eq(questionBankVersions.status, 'draft')).for('update');
    if (!draft) throw invalidInput('There is no draft to publish');
    const checked = questionBankSchema.safeParse({ version: draft.version, steps: draft.steps });
    if (!checked.success) throw invalidInput(`The draft is invalid: ${checked.error.issues[0]?.message ?? ''}`);
    const now = new Date();
    await tx.update(questionBankVersions).set({ status: 'archived', updatedAt: now }).where(eq(questionBankVersions.status, 'published'));
    await tx
      .update(questionBankVersions)
      .set({ status: 'published', publishedAt: now, schoolYear: schoolYear ?? null, updatedAt: now })
      .where(eq(questionBankVersions.version, draft.version));
    await tx.insert(questionBankVersions).values({ version: draft.version + 1, status: 'draft', steps: draft.steps });
    if (schoolYear) {
      const term = schoolYearTerm(schoolYear);
      await tx
        .insert(schoolYearSettings)
        .values({ schoolYear, questionBankVersion: draft.version, termStart: term.start, termEnd: term.end })
        .onConflictDoUpdate({ target: schoolYearSettings.schoolYear, set: { questionBankVersion: draft.version, updatedAt: now } });
    }
    await recordAudit(tx, caller, {
      action: 'questionBank.publish',
      targetType: 'questionBank',
      targetId: String(draft.version),
      summary: { schoolYear: schoolYear ?? null },
    });
    return { version: draft.version, draftVersion: draft.version + 1 };
  });
  await services.banks.publishedChanged();
  return result;
}
