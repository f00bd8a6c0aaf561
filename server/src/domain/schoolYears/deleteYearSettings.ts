import { eq, sql } from 'drizzle-orm';
import type { DomainServices } from '../domainServices.ts';
import { plans, schoolYearSettings } from '../../storage/schema.ts';
import { conflict, notFound } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';

/**
 * Super Admin: removes a year's settings that no plan uses, such as a stray label stored by
 * mistake. A year with plans keeps its settings (they archive and pin its plans).
 */
export async function deleteYearSettings(services: DomainServices, caller: Caller, schoolYear: string): Promise<void> {
  await services.storage.db.transaction(async (tx) => {
    const [used] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(plans)
      .where(eq(plans.schoolYear, schoolYear));
    if ((used?.count ?? 0) > 0) throw conflict(`${schoolYear} has ${used!.count} plans; its settings stay while it has plans`, { planCount: used!.count });
    const [removed] = await tx
      .delete(schoolYearSettings)
      .where(eq(schoolYearSettings.schoolYear, schoolYear))
      .returning({ schoolYear: schoolYearSettings.schoolYear });
    if (!removed) throw notFound(`No settings for ${schoolYear}`);
    await recordAudit(tx, caller, { action: 'schoolYear.delete', targetType: 'schoolYear', targetId: schoolYear });
  });
}
