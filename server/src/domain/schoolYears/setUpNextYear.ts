import { eq } from 'drizzle-orm';
import { isAcceptedSchoolYear, latestSchoolYear, nextSchoolYear, schoolYearTerm, type Deadline } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { schoolYearSettings } from '../../storage/schema.ts';
import { invalidInput, conflict, notFound } from '../../errors.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { YearSettingsRow } from '../../storage/rows.ts';

/** Due dates one year later (February 29 becomes February 28). */
export function shiftDeadlines(deadlines: Deadline[]): Deadline[] {
  return deadlines.map((deadline) => {
    const [year, month, day] = deadline.dueDate.slice(0, 10).split('-').map(Number) as [number, number, number];
    const next = new Date(Date.UTC(year + 1, month - 1, day));
    if (next.getUTCMonth() !== month - 1) next.setUTCDate(0);
    return { ...deadline, dueDate: next.toISOString().slice(0, 10) };
  });
}

/**
 * Next year's settings from a year's (the latest stored when none is named): the default July–June
 * term, the same pinned bank and district goals, deadlines a year later. Plans and the source
 * year are left as they are; existing next-year settings are a 409.
 */
export async function setUpNextYear(services: DomainServices, caller: Caller, fromYear: string | undefined): Promise<YearSettingsRow> {
  const db = services.storage.db;
  // Without a named year: the latest accepted one (a stray label stored before labels were checked is skipped).
  const sourceYear =
    fromYear ??
    latestSchoolYear(
      (await db.select({ schoolYear: schoolYearSettings.schoolYear }).from(schoolYearSettings)).map((row) => row.schoolYear).filter(isAcceptedSchoolYear),
    );
  const [source] = sourceYear ? await db.select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, sourceYear)).limit(1) : [];
  if (!source) throw fromYear ? notFound(`No settings for ${fromYear}`) : invalidInput('No school year is set up yet');
  const schoolYear = nextSchoolYear(source.schoolYear);
  const term = schoolYearTerm(schoolYear);
  try {
    return await db.transaction(async (tx) => {
      const [created] = await tx
        .insert(schoolYearSettings)
        .values({
          schoolYear,
          archived: false,
          questionBankVersion: source.questionBankVersion,
          districtGoals: source.districtGoals,
          deadlines: shiftDeadlines(source.deadlines),
          termStart: term.start,
          termEnd: term.end,
        })
        .returning();
      await recordAudit(tx, caller, { action: 'schoolYear.setup', targetType: 'schoolYear', targetId: schoolYear, summary: { fromYear: source.schoolYear } });
      return created!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`Settings for ${schoolYear} already exist`);
    throw error;
  }
}
