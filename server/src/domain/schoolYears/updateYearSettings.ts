import { eq } from 'drizzle-orm';
import type { Deadline, DistrictGoal } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { questionBankVersions, schoolYearSettings } from '../../storage/schema.ts';
import { invalidInput } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { ensureYearSettings } from './ensureYearSettings.ts';
import type { YearSettingsRow } from '../../storage/rows.ts';

export interface YearSettingsChanges {
  archived?: boolean | undefined;
  questionBankVersion?: number | undefined;
  deadlines?: Deadline[] | undefined;
  districtGoals?: DistrictGoal[] | undefined;
}

/** Super Admin: archive or un-archive a year, pin a published bank version, set deadlines and goals. */
export async function updateYearSettings(services: DomainServices, caller: Caller, schoolYear: string, changes: YearSettingsChanges): Promise<YearSettingsRow> {
  const db = services.storage.db;
  if (changes.questionBankVersion !== undefined) {
    const [version] = await db
      .select({ status: questionBankVersions.status })
      .from(questionBankVersions)
      .where(eq(questionBankVersions.version, changes.questionBankVersion));
    if (!version || version.status === 'draft') throw invalidInput('questionBankVersion must be a published (or archived) bank version');
  }
  const before = await ensureYearSettings(db, services.banks, schoolYear);
  const fields = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as YearSettingsChanges;
  const updated = await services.events.transaction(async (tx, record) => {
    const [row] = await tx
      .update(schoolYearSettings)
      .set({ ...fields, updatedAt: new Date() })
      .where(eq(schoolYearSettings.schoolYear, schoolYear))
      .returning();
    const summaryBefore = Object.fromEntries(Object.keys(fields).map((key) => [key, before[key as keyof YearSettingsChanges]]));
    await recordAudit(tx, caller, {
      action: 'schoolYear.update',
      targetType: 'schoolYear',
      targetId: schoolYear,
      summary: { before: summaryBefore, after: fields },
    });
    // Archiving makes open editors read-only; un-archiving makes them writable again.
    if (fields.archived !== undefined && fields.archived !== before.archived)
      record({ type: 'schoolYear.archiveChanged', schoolYear, archived: fields.archived });
    return row!;
  });
  return updated;
}
