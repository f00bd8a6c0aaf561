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
 * A step write's guard that the caller's access is as it was read (`AccessVersions`): the plan's,
 * the caller's share's and the year's rows still have the versions the decision was made on. Writes
 * made without a caller's read (copies into a plan, under its rows' locks) pass null and skip it.
 */
const accessUnchanged = sql`(${placeholder('planVersion')}::text is null or exists (
  select 1 from plans p
  left join plan_shares s on s.form_id = p.id and s.user_id = ${placeholder('userId')}
  left join school_year_settings y on y.school_year = p.school_year
  where p.id = ${placeholder('formId')} and p.xmin::text = ${placeholder('planVersion')}::text
    and s.xmin::text is not distinct from ${placeholder('shareVersion')}::text
    and y.xmin::text is not distinct from ${placeholder('yearVersion')}::text))`;

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

    writeStep: db
      .update(planSteps)
      .set({
        data: sql`${planSteps.data} || ${placeholder('dirty')}::jsonb`,
        fieldRevisions: sql`${planSteps.fieldRevisions} || ${placeholder('fieldRevisions')}::jsonb`,
        fieldChangedAt: sql`${planSteps.fieldChangedAt} || ${placeholder('fieldChangedAt')}::jsonb`,
        completed: sql`${placeholder('completed')}::boolean`,
        revisionCount: sql`${placeholder('revision')}::integer`,
        lastUpdated: sql`${placeholder('at')}::timestamptz`,
        updatedBy: sql`${placeholder('updatedBy')}::text`,
      })
      .where(
        and(
          eq(planSteps.formId, placeholder('formId')),
          eq(planSteps.stepKey, placeholder('stepKey')),
          eq(planSteps.revisionCount, placeholder('expected')),
          accessUnchanged,
        ),
      )
      // The written answers, revision and time are known to the caller (the guard proves the row
      // was the one it read); only whether the step's live document was ever opened is asked.
      .returning({
        hasDocument: sql<boolean>`exists (select 1 from ${collabDocuments} where ${collabDocuments.name} = ${placeholder('documentName')})`,
      })
      .prepare('csp_write_step'),
  };
}

const prepared = new WeakMap<Database, ReturnType<typeof build>>();

export function preparedQueries(db: Database): ReturnType<typeof build> {
  let queries = prepared.get(db);
  if (!queries) prepared.set(db, (queries = build(db)));
  return queries;
}
