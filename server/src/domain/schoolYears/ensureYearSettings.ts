import { eq } from 'drizzle-orm';
import { schoolYearTerm } from '@csp/shared';
import type { Database } from '../../storage/database.ts';
import { schoolYearSettings } from '../../storage/schema.ts';
import type { BankCatalog } from '../questionBank/bankCatalog.ts';
import type { YearSettingsRow } from '../../storage/rows.ts';

/** A year's settings, created with the default term and the published bank when missing. */
export async function ensureYearSettings(db: Database, banks: BankCatalog, schoolYear: string): Promise<YearSettingsRow> {
  const [existing] = await db.select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, schoolYear)).limit(1);
  if (existing) return existing;
  const term = schoolYearTerm(schoolYear);
  await db
    .insert(schoolYearSettings)
    .values({ schoolYear, questionBankVersion: await banks.publishedVersion(), termStart: term.start, termEnd: term.end })
    .onConflictDoNothing();
  const [created] = await db.select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, schoolYear)).limit(1);
  return created!;
}
