import { eq, inArray, or } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { notifications, plans, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';

import type { PlanRow } from '../../storage/rows.ts';
import type { RecordEvent } from '../events.ts';

/**
 * A review ping to the plan's owner and principal (each once), and the plan's marker that a ping
 * went out; each notification is recorded as an event of the caller's transaction.
 */
export async function notifyPlanPeople(db: Database, record: RecordEvent, plan: PlanRow, kind: string, message: string): Promise<void> {
  const conditions = [];
  if (plan.userId) conditions.push(eq(users.id, plan.userId));
  if (plan.principalEmail) conditions.push(eq(users.email, plan.principalEmail));
  if (conditions.length === 0) return;
  const recipients = await db
    .select({ id: users.id })
    .from(users)
    .where(or(...conditions));
  if (recipients.length === 0) return;
  const created = await db
    .insert(notifications)
    .values(recipients.map((recipient) => ({ id: newId(), userId: recipient.id, formId: plan.id, kind, message })))
    .returning();
  await db
    .update(plans)
    .set({ notificationSent: true })
    .where(inArray(plans.id, [plan.id]));
  for (const notification of created) record({ type: 'notification.created', notification });
}
