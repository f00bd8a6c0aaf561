import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { LEVEL } from '@csp/shared';
import type { Database } from '../../storage/database.ts';
import { planShares, users } from '../../storage/schema.ts';
import type { UserRow } from '../../storage/rows.ts';
import { can, planAccess } from '../../policy/index.ts';
import { invalidInput } from '../../errors.ts';
import { likeLiteral } from '../../storage/likePattern.ts';
import type { PlanContext } from '../plans/loadPlan.ts';

const MAX_CANDIDATES = 10;

/** Whether `user` reads the plan (and the thread's step, when it has one), by the policy's rules. */
async function readersAmong(db: Database, context: PlanContext, people: UserRow[], stepKey: string | null): Promise<UserRow[]> {
  if (people.length === 0) return [];
  const shares = await db
    .select()
    .from(planShares)
    .where(
      and(
        eq(planShares.formId, context.plan.id),
        inArray(
          planShares.userId,
          people.map((person) => person.id),
        ),
      ),
    );
  return people.filter((person) => {
    const subject = { plan: context.plan, access: planAccess(person, context.plan, shares.find((share) => share.userId === person.id) ?? null) };
    return stepKey === null ? can(person, 'readPlan', subject) : can(person, 'readStep', { plan: subject, stepKey });
  });
}

/**
 * People one may mention on the plan: active people who can read it (and the thread's step),
 * whose name or e-mail starts with `q` (or a word of the name does), at most ten, by name.
 */
export async function mentionCandidates(db: Database, context: PlanContext, q: string, stepKey: string | null = null): Promise<UserRow[]> {
  const { plan } = context;
  const emails = [plan.principalEmail, plan.assignedTo, ...plan.sharedWithEmails].filter((email): email is string => Boolean(email));
  const pattern = likeLiteral(q.toLowerCase());
  const matches = q
    ? or(sql`lower(${users.name}) like ${`${pattern}%`}`, sql`lower(${users.name}) like ${`% ${pattern}%`}`, sql`${users.email} like ${`${pattern}%`}`)
    : undefined;
  const candidates = await db
    .select()
    .from(users)
    .where(
      and(
        eq(users.isActive, true),
        eq(users.isDemo, false),
        matches,
        or(
          eq(users.schoolName, plan.schoolName),
          eq(users.level, LEVEL.superAdmin),
          plan.userId ? eq(users.id, plan.userId) : undefined,
          emails.length ? inArray(users.email, emails) : undefined,
          sql`${users.id} in (select user_id from plan_shares where form_id = ${plan.id})`,
        ),
      ),
    )
    .orderBy(users.name)
    .limit(200);
  return (await readersAmong(db, context, candidates, stepKey)).slice(0, MAX_CANDIDATES);
}

/** The people a comment or reply mentions; anyone who cannot read the thread is a 400. */
export async function mentionedPeople(db: Database, context: PlanContext, ids: string[], stepKey: string | null): Promise<UserRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const found = await db
    .select()
    .from(users)
    .where(and(inArray(users.id, unique), eq(users.isActive, true), eq(users.isDemo, false)));
  const readers = await readersAmong(db, context, found, stepKey);
  const refused = unique.filter((id) => !readers.some((reader) => reader.id === id));
  if (refused.length) throw invalidInput('Only people who can read this part of the plan can be mentioned', { details: { userIds: refused } });
  // In the order they were mentioned (the database returns them in any order).
  return unique.map((id) => readers.find((reader) => reader.id === id)!);
}
