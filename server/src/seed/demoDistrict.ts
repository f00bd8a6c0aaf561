import { and, eq, sql } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, previousSchoolYear, schoolYearTerm, isStepComplete, type Level } from '@csp/shared';
import type { Database } from '../storage/database.ts';
import { planShares, planSteps, plans, schoolYearSettings, users } from '../storage/schema.ts';
import { newId } from '../storage/ids.ts';
import { sampleStepAnswers } from './sampleAnswers.ts';

const DEMO_DOMAIN = 'example.org';
const DEMO_SCHOOLS = [
  { name: 'Harbor View Academy', slug: 'harbor', filledSteps: 12, previousStatus: 'approved' as const },
  { name: 'Riverside Learning Center', slug: 'riverside', filledSteps: 7, previousStatus: 'submitted' as const },
];

/**
 * The current-year Harbor plan is shared for editing (every section) with Harbor's assistant
 * principal, so the principal and the AP signed in side by side co-edit it live.
 */
const DEMO_EDIT_SHARE = { schoolName: 'Harbor View Academy', email: `ap.harbor@${DEMO_DOMAIN}` };

interface DemoUser {
  email: string;
  name: string;
  level: Level;
  schoolName: string;
  title: string;
  isActive?: boolean;
  isDemo?: boolean;
}

function demoUsers(): DemoUser[] {
  const list: DemoUser[] = [{ email: `superadmin@${DEMO_DOMAIN}`, name: 'Dana Whitfield', level: 5, schoolName: 'District Office', title: 'Superintendent' }];
  const staff = [
    ['principal', 4, 'Principal'],
    ['ap', 3, 'Assistant Principal'],
    ['coordinator', 2, 'Parent Coordinator'],
    ['teacher', 1, 'Teacher'],
  ] as const;
  const names: Record<string, string[]> = {
    harbor: ['Elena Rodriguez', 'Marcus Bell', 'Priya Natarajan', 'Samuel Okafor'],
    riverside: ['James Whitaker', 'Lin Zhao', 'Fatima Rahman', 'Carlos Mendoza'],
  };
  for (const school of DEMO_SCHOOLS) {
    staff.forEach(([role, level, title], index) =>
      list.push({ email: `${role}.${school.slug}@${DEMO_DOMAIN}`, name: names[school.slug]![index]!, level, schoolName: school.name, title }),
    );
  }
  list.push(
    { email: `inactive.harbor@${DEMO_DOMAIN}`, name: 'Robin Hale', level: 1, schoolName: 'Harbor View Academy', title: 'Teacher', isActive: false },
    { email: `demo.principal@${DEMO_DOMAIN}`, name: 'Demo Principal', level: 4, schoolName: 'Harbor View Academy', title: 'Principal', isDemo: true },
  );
  return list;
}

export async function isDatabaseEmpty(db: Database): Promise<boolean> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(users);
  return (row?.count ?? 0) === 0;
}

/**
 * Loads the demo district: users, the previous year (archived, answered plans) and the current year
 * (draft plans owned by each principal; Harbor's shared for editing with its assistant principal).
 * Idempotent: what already exists is left as it is.
 */
export async function seedDemoDistrict(db: Database, now: Date = new Date()): Promise<void> {
  const current = currentSchoolYear(now);
  const previous = previousSchoolYear(current);
  const bank = BUNDLED_BANK;

  await db.transaction(async (tx) => {
    await tx
      .insert(users)
      .values(demoUsers().map((user) => ({ id: newId(), isActive: true, isDemo: false, ...user })))
      .onConflictDoNothing();
    for (const [year, archived] of [
      [previous, true],
      [current, false],
    ] as const) {
      const term = schoolYearTerm(year);
      await tx
        .insert(schoolYearSettings)
        .values({ schoolYear: year, archived, questionBankVersion: bank.version, termStart: term.start, termEnd: term.end })
        .onConflictDoNothing();
    }

    const principals = await tx
      .select({ id: users.id, email: users.email, schoolName: users.schoolName })
      .from(users)
      .where(sql`${users.level} = 4 and not ${users.isDemo}`);
    for (const school of DEMO_SCHOOLS) {
      const principal = principals.find((p) => p.schoolName === school.name);
      for (const year of [previous, current]) {
        const isPrevious = year === previous;
        const id = newId();
        const inserted = await tx
          .insert(plans)
          .values({
            id,
            schoolName: school.name,
            schoolYear: year,
            status: isPrevious ? school.previousStatus : 'draft',
            userId: principal?.id ?? null,
            principalEmail: principal?.email ?? null,
            questionBankVersion: bank.version,
            submittedAt: isPrevious ? new Date(`${year.slice(5)}-05-15T15:00:00Z`) : null,
          })
          .onConflictDoNothing()
          .returning({ id: plans.id });
        if (inserted.length === 0) continue;
        await tx.insert(planSteps).values(
          bank.steps.map((step, index) => {
            const data = isPrevious && index < school.filledSteps ? sampleStepAnswers(step, school.name) : {};
            const filled = Object.keys(data).length > 0;
            return {
              formId: id,
              stepKey: step.key,
              data,
              completed: filled && isStepComplete(step, data),
              revisionCount: filled ? 1 : 0,
              lastUpdated: filled ? new Date(`${year.slice(5)}-04-20T14:00:00Z`) : null,
              updatedBy: filled ? (principal?.id ?? null) : null,
            };
          }),
        );
      }
    }

    // The same row the admin share route writes: `edit`, no sections (every step), shared by the principal.
    const [shared] = await tx
      .select({ formId: plans.id, sharedBy: plans.userId })
      .from(plans)
      .where(and(eq(plans.schoolName, DEMO_EDIT_SHARE.schoolName), eq(plans.schoolYear, current)));
    const [assistant] = await tx.select({ id: users.id }).from(users).where(eq(users.email, DEMO_EDIT_SHARE.email));
    if (shared && assistant) {
      await tx
        .insert(planShares)
        .values({ formId: shared.formId, userId: assistant.id, permission: 'edit', sections: [], sharedBy: shared.sharedBy })
        .onConflictDoNothing();
    }
  });
}
