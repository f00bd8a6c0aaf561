import { eq, sql } from 'drizzle-orm';
import type { MailItemData, MailPlan, ReminderSection } from '@csp/shared/mail';
import { rowsOf, type Database } from '../../storage/database.ts';
import { schoolYearSettings } from '../../storage/schema.ts';
import { enqueueMail, type MailItem } from './enqueueMail.ts';
import { editorsOf } from '../notifications/planPeople.ts';

const DAY_MS = 86_400_000;
const addDays = (isoDate: string, days: number) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

interface Trigger {
  form_id: string;
  step_key: string;
  due_date: string;
  moment: 'before' | 'overdue';
}

/**
 * The day's deadline reminders, in the daily run's transaction: for every live year's section due
 * dates, each unfinished section (a plan still in draft or returned whose step is not complete) is
 * reminded once from `reminderDaysBefore` days before its due date, and once more when overdue.
 * Each active person who edits such a plan (its principals, owner, assignee, e-mail shares, edit
 * shares covering the step) gets one item for the day listing all of them: one e-mail a day at most.
 * Returns how many people were reminded.
 */
export async function queueDeadlineReminders(tx: Database, today: string): Promise<number> {
  const years = await tx
    .select({ schoolYear: schoolYearSettings.schoolYear, deadlines: schoolYearSettings.deadlines, daysBefore: schoolYearSettings.reminderDaysBefore })
    .from(schoolYearSettings)
    .where(eq(schoolYearSettings.archived, false));
  const triggers: Trigger[] = [];
  const titles = new Map<string, string>();
  for (const year of years) {
    const due = year.deadlines.flatMap((deadline) => {
      const moment = today > deadline.dueDate ? 'overdue' : today >= addDays(deadline.dueDate, -year.daysBefore) ? 'before' : null;
      titles.set(`${year.schoolYear}:${deadline.stepKey}`, deadline.label);
      return moment ? [{ step_key: deadline.stepKey, due_date: deadline.dueDate, moment }] : [];
    });
    if (due.length === 0) continue;
    // Records each unfinished section's reminder; the ones recorded before (an earlier day) are not returned.
    triggers.push(
      ...(await rowsOf<Trigger>(
        tx,
        sql`insert into deadline_reminders (form_id, step_key, due_date, moment)
          select p.id, d.step_key, d.due_date, d.moment
          from plans p
          cross join jsonb_to_recordset(${JSON.stringify(due)}::jsonb) as d(step_key text, due_date text, moment text)
          left join plan_steps s on s.form_id = p.id and s.step_key = d.step_key
          where p.school_year = ${year.schoolYear} and p.status in ('draft', 'rejected') and coalesce(s.completed, false) = false
          on conflict do nothing
          returning form_id, step_key, due_date, moment`,
      )),
    );
  }
  if (triggers.length === 0) return 0;

  const formIds = [...new Set(triggers.map((trigger) => trigger.form_id))];
  const ids = sql`${`{${formIds.join(',')}}`}::text[]`;
  const plansById = new Map(
    (
      await rowsOf<{ id: string; school_name: string; school_year: string }>(tx, sql`select id, school_name, school_year from plans where id = any(${ids})`)
    ).map((plan) => [plan.id, plan]),
  );
  const recipients = await editorsOf(tx, formIds);

  const triggersOf = new Map<string, Trigger[]>();
  for (const trigger of triggers) triggersOf.set(trigger.form_id, [...(triggersOf.get(trigger.form_id) ?? []), trigger]);
  const byPerson = new Map<string, Map<string, ReminderSection[]>>();
  for (const recipient of recipients) {
    const covered = (stepKey: string) => !recipient.sections || recipient.sections.includes(stepKey);
    for (const trigger of triggersOf.get(recipient.formId) ?? []) {
      if (!covered(trigger.step_key)) continue;
      const plans = byPerson.get(recipient.userId) ?? new Map<string, ReminderSection[]>();
      const sections = plans.get(trigger.form_id) ?? [];
      const title = titles.get(`${plansById.get(trigger.form_id)!.school_year}:${trigger.step_key}`) ?? trigger.step_key;
      if (!sections.some((section) => section.title === title)) sections.push({ title, dueDate: trigger.due_date, overdue: trigger.moment === 'overdue' });
      plans.set(trigger.form_id, sections);
      byPerson.set(recipient.userId, plans);
    }
  }
  const items: MailItem[] = [...byPerson].map(([userId, plans]) => {
    const data: MailItemData = {
      type: 'deadline_reminder',
      plans: [...plans].map(([formId, sections]) => {
        const plan = plansById.get(formId)!;
        const mailPlan: MailPlan = { formId, schoolName: plan.school_name, schoolYear: plan.school_year };
        return { plan: mailPlan, link: `/plans/${formId}`, sections: sections.sort((a, b) => a.dueDate.localeCompare(b.dueDate)) };
      }),
    };
    return { userId, key: `reminders:${userId}:${today}`, data };
  });
  await enqueueMail(tx, items);
  return items.length;
}
