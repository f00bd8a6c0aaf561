import { and, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Database } from './database.ts';
import { collabDocuments, planShares, planSteps, plans, schoolYearSettings, sessions, users } from './schema.ts';

const previewUsers = alias(users, 'preview_users');
const placeholder = sql.placeholder;

/** Sessions with their user and, while a Super Admin previews a demo user, the previewed user. */
export function sessionsWithUsers(db: Database) {
  return db
    .select({ session: sessions, user: users, preview: previewUsers })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(previewUsers, eq(previewUsers.id, sessions.previewUserId));
}

/** What the policy needs of a plan: the plan, the caller's share of it, its year's archive flag. */
const planAccessColumns = { plan: plans, share: planShares, archived: schoolYearSettings.archived };
const callersShare = () => and(eq(planShares.formId, plans.id), eq(planShares.userId, placeholder('userId')));
const planYear = () => eq(schoolYearSettings.schoolYear, plans.schoolYear);

/**
 * The rows of a batch of step writes (stepWriteBatch.ts): each names the step, the revision it was
 * read at, what it writes and, unless it was made without a caller's read, the caller and the
 * versions of the rows its access was decided on (`AccessVersions`).
 */
const stepWrites = sql`jsonb_to_recordset(${placeholder('writes')}::jsonb) as w(
  ordinal integer, form_id text, step_key text, expected integer, dirty jsonb, field_revisions jsonb,
  field_changed_at jsonb, completed boolean, revision integer, at timestamptz, updated_by text,
  document_name text, user_id text, plan_version text, share_version text, year_version text)`;

/**
 * A step write's guard that the caller's access is as it was read: the plan's, the caller's
 * share's and the year's rows still have the versions the decision was made on. Writes made
 * without a caller's read (copies into a plan, under its rows' locks) carry no versions and skip it.
 */
const accessUnchanged = sql`(w.plan_version is null or exists (
  select 1 from plans p
  left join plan_shares s on s.form_id = p.id and s.user_id = w.user_id
  left join school_year_settings y on y.school_year = p.school_year
  where p.id = w.form_id and p.xmin::text = w.plan_version
    and s.xmin::text is not distinct from w.share_version
    and y.xmin::text is not distinct from w.year_version))`;

/**
 * The queries every autosave runs (session, plan access, step read and write), built once per
 * database handle and prepared: no query building per request, no re-parsing in PostgreSQL.
 */
function build(db: Database) {
  return {
    sessionById: sessionsWithUsers(db)
      .where(eq(sessions.id, placeholder('id')))
      .limit(1)
      .prepare('csp_session_by_id'),

    planForUser: db
      .select(planAccessColumns)
      .from(plans)
      .leftJoin(planShares, callersShare())
      .leftJoin(schoolYearSettings, planYear())
      .where(eq(plans.id, placeholder('formId')))
      .limit(1)
      .prepare('csp_plan_for_user'),

    /** The plan, the caller's share and the year's archive flag, with one step's row: the autosave's one read. */
    planStepForUser: db
      .select({
        ...planAccessColumns,
        step: planSteps,
        versions: {
          plan: sql<string>`${plans}.xmin::text`,
          share: sql<string | null>`${planShares}.xmin::text`,
          year: sql<string | null>`${schoolYearSettings}.xmin::text`,
        },
      })
      .from(plans)
      .leftJoin(planShares, callersShare())
      .leftJoin(schoolYearSettings, planYear())
      .leftJoin(planSteps, and(eq(planSteps.formId, plans.id), eq(planSteps.stepKey, placeholder('stepKey'))))
      .where(eq(plans.id, placeholder('formId')))
      .limit(1)
      .prepare('csp_plan_step_for_user'),

    stepRow: db
      .select()
      .from(planSteps)
      .where(and(eq(planSteps.formId, placeholder('formId')), eq(planSteps.stepKey, placeholder('stepKey'))))
      .limit(1)
      .prepare('csp_step_row'),

    /**
     * A batch of step writes in one statement and one commit, each guarded by the revision it was
     * read at and its access (above). A step named twice in one batch is written once: its other
     * writes come back missing, as if another write had come first.
     */
    writeSteps: db
      .update(planSteps)
      .set({
        data: sql`${planSteps.data} || w.dirty`,
        fieldRevisions: sql`${planSteps.fieldRevisions} || w.field_revisions`,
        fieldChangedAt: sql`${planSteps.fieldChangedAt} || w.field_changed_at`,
        completed: sql`w.completed`,
        revisionCount: sql`w.revision`,
        lastUpdated: sql`w.at`,
        updatedBy: sql`w.updated_by`,
      })
      .from(stepWrites)
      .where(and(sql`${planSteps.formId} = w.form_id`, sql`${planSteps.stepKey} = w.step_key`, sql`${planSteps.revisionCount} = w.expected`, accessUnchanged))
      // The written answers, revision and time are known to the caller (the guard proves the row
      // was the one it read); only whether the step's live document was ever opened is asked.
      .returning({
        ordinal: sql<number>`w.ordinal`,
        hasDocument: sql<boolean>`exists (select 1 from ${collabDocuments} where ${collabDocuments.name} = w.document_name)`,
      })
      .prepare('csp_write_steps'),
  };
}

const prepared = new WeakMap<Database, ReturnType<typeof build>>();

export function preparedQueries(db: Database): ReturnType<typeof build> {
  let queries = prepared.get(db);
  if (!queries) prepared.set(db, (queries = build(db)));
  return queries;
}
