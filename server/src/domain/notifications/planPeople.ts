import { and, eq, inArray, sql } from 'drizzle-orm';
import { LEVEL } from '@csp/shared';
import { rowsOf, type Database } from '../../storage/database.ts';
import { users } from '../../storage/schema.ts';

/** A person who edits a plan, and the steps a section-limited share gives them (null: every step). */
export interface PlanEditor {
  formId: string;
  userId: string;
  sections: string[] | null;
}

/**
 * The active people who edit each of these plans, by every way one comes to edit a plan
 * (docs/access-rules.md): owner, principals (level 4 of the school, or `principalEmail`), assignee,
 * e-mail shares, and shares with `edit`. Super Admins are reviewers, not editors. A person who edits
 * a plan in several ways appears once per way.
 */
export async function editorsOf(db: Database, formIds: string[]): Promise<PlanEditor[]> {
  if (formIds.length === 0) return [];
  const ids = sql`${`{${formIds.join(',')}}`}::text[]`;
  const rows = await rowsOf<{ form_id: string; user_id: string; sections: string[] | null }>(
    db,
    sql`with p as (select * from plans where id = any(${ids})),
      editors as (
        select p.id as form_id, p.user_id as user_id, null::jsonb as sections from p where p.user_id is not null
        union all select p.id, u.id, null from p join users u on u.email = p.principal_email
        union all select p.id, u.id, null from p join users u on u.email = p.assigned_to
        union all select p.id, u.id, null from p cross join jsonb_array_elements_text(p.shared_with_emails) e(email) join users u on u.email = e.email
        union all select p.id, u.id, null from p join users u on u.school_name = p.school_name and u.level = ${LEVEL.principal}
        union all select sh.form_id, sh.user_id, sh.sections from plan_shares sh where sh.form_id = any(${ids}) and sh.permission = 'edit'
      )
      select e.form_id, e.user_id, e.sections from editors e join users u on u.id = e.user_id and u.is_active and not u.is_demo and u.level < ${LEVEL.superAdmin}`,
  );
  return rows.map((row) => ({ formId: row.form_id, userId: row.user_id, sections: row.sections && row.sections.length > 0 ? row.sections : null }));
}

/** The ids of the people who edit one plan (of one step, when given), each once. */
export async function editorIdsOf(db: Database, formId: string, stepKey?: string | null): Promise<string[]> {
  const editors = await editorsOf(db, [formId]);
  return [...new Set(editors.filter((editor) => !stepKey || !editor.sections || editor.sections.includes(stepKey)).map((editor) => editor.userId))];
}

/** The district's reviewers: active Super Admins (demo users never receive anything). */
export async function reviewerIds(db: Database): Promise<string[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.level, LEVEL.superAdmin), eq(users.isActive, true), eq(users.isDemo, false)));
  return rows.map((row) => row.id);
}

/** The ids of the users with these e-mails (an e-mail share names people by address). */
export async function userIdsByEmail(db: Database, emails: string[]): Promise<string[]> {
  if (emails.length === 0) return [];
  return (await db.select({ id: users.id }).from(users).where(inArray(users.email, emails))).map((row) => row.id);
}
