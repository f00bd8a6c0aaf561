import { eq } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { planShares, users } from '../../storage/schema.ts';

/** The people a plan is shared with, by name: who, at which level, with which rights and sections. */
export function listPlanShares(db: Database, formId: string) {
  return db
    .select({ userId: users.id, name: users.name, email: users.email, level: users.level, permissions: planShares.permission, sections: planShares.sections })
    .from(planShares)
    .innerJoin(users, eq(users.id, planShares.userId))
    .where(eq(planShares.formId, formId))
    .orderBy(users.name);
}
