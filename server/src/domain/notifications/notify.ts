import type { MailItemData, MailPlan } from '@csp/shared/mail';
import type { Database } from '../../storage/database.ts';
import { notifications } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import type { PlanRow } from '../../storage/rows.ts';
import type { RecordEvent } from '../events.ts';

/** A plan as e-mail and notifications name it: its school and year. */
export const mailPlanOf = (plan: Pick<PlanRow, 'id' | 'schoolName' | 'schoolYear'>): MailPlan => ({
  formId: plan.id,
  schoolName: plan.schoolName,
  schoolYear: plan.schoolYear,
});
export const planLabelOf = (plan: Pick<PlanRow, 'schoolName' | 'schoolYear'>) => `${plan.schoolName} ${plan.schoolYear} plan`;
export const planLink = (formId: string) => `/plans/${formId}`;

/** One event told to people: in the app (a notification that links to it) and by e-mail. */
export interface Notice {
  /** Names the event in the e-mail's idempotency key (one e-mail per event and person). */
  eventKey: string;
  formId: string | null;
  /** The notification's kind (`comment`, `reply`, `mention`, `review`, `submitted`, `shared`, `ownership`). */
  kind: string;
  /** What happened, as a person says it ("Dana Whitfield commented on 2c. Who is…"). */
  message: string;
  /** Where it happened in the web app. */
  link: string;
  /** The e-mail's line about it (names and links only); none for events not mailed. */
  mail?: MailItemData;
}

/**
 * Tells `userIds` (each once, never the actor) about an event, in the transaction of the change:
 * each notification is recorded as an event with its e-mail, which the outbox subscriber queues in
 * the same transaction and the realtime fan-out delivers after the commit.
 */
export async function notify(tx: Database, record: RecordEvent, notice: Notice, userIds: string[], actorId: string | null): Promise<void> {
  const recipients = [...new Set(userIds)].filter((id) => id !== actorId);
  if (recipients.length === 0) return;
  const created = await tx
    .insert(notifications)
    .values(recipients.map((userId) => ({ id: newId(), userId, formId: notice.formId, kind: notice.kind, message: notice.message, link: notice.link })))
    .returning();
  const mail = notice.mail;
  for (const notification of created) {
    record({ type: 'notification.created', notification, ...(mail ? { mail: { key: `${notice.eventKey}:${notification.userId}`, data: mail } } : {}) });
  }
}
