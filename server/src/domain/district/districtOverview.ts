import { eq, inArray, sql } from 'drizzle-orm';
import { currentSchoolYear, previousSchoolYear } from '@csp/shared';
import type { PublicOverview as DistrictOverview } from '@csp/shared/api/public';
import type { BaseDomainServices } from '../domainServices.ts';
import { plans } from '../../storage/schema.ts';
import { planStarted } from './planStarted.ts';

const OVERVIEW_CACHE_KEY = 'public:overview';
const OVERVIEW_TTL_MS = 60_000;

/** The public district snapshot, from the shared store when computed in the last 60 s. */
export async function districtOverview({ storage, kv, banks, logger }: BaseDomainServices, now = new Date()): Promise<DistrictOverview> {
  const cached = await kv.get(OVERVIEW_CACHE_KEY).catch(() => null);
  if (cached) return JSON.parse(cached) as DistrictOverview;
  const currentYear = currentSchoolYear(now);
  const db = storage.db;
  const [[schools], [thisYear], bank] = await Promise.all([
    db.select({ count: sql<number>`count(distinct ${plans.schoolName})::int` }).from(plans),
    db
      .select({
        total: sql<number>`count(*)::int`,
        started: sql<number>`(count(*) filter (where ${planStarted}))::int`,
        submitted: sql<number>`(count(*) filter (where ${inArray(plans.status, ['submitted', 'under_review', 'approved'])}))::int`,
      })
      .from(plans)
      .where(eq(plans.schoolYear, currentYear)),
    banks.resolve(await banks.publishedVersion()),
  ]);
  const overview: DistrictOverview = {
    currentYear,
    previousYear: previousSchoolYear(currentYear),
    sectionCount: bank.steps.length,
    schoolsServed: schools?.count ?? 0,
    currentYearPlans: thisYear?.total ?? 0,
    startedThisYear: thisYear?.started ?? 0,
    submittedThisYear: thisYear?.submitted ?? 0,
  };
  await kv.set(OVERVIEW_CACHE_KEY, JSON.stringify(overview), OVERVIEW_TTL_MS).catch((error: unknown) => logger.warn({ err: error }, 'overview not cached'));
  return overview;
}
