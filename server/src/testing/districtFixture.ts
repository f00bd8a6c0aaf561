/**
 * A district at full size, grown in the database with a few set-based statements (INSERT … SELECT
 * over generate_series; the API would take minutes): schools with a principal each, last year's
 * plans in their final states, this year's plans rolled over from them (copies with review flags,
 * most not yet touched), staff, open comments and a long audit log. Used by route tests (on PGlite
 * and PostgreSQL) and by the district benchmark (tests/bench/district.bench.ts), so both measure
 * the same district. Everything is derived from the school's number, so counts can be checked.
 */
import { sql } from 'drizzle-orm';
import { currentSchoolYear, NEEDS_UPDATE_LABELS, previousSchoolYear, type Deadline, type NeedsUpdateFlag } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { rowsOf, type Database } from '../storage/database.ts';

export interface DistrictSize {
  schools: number;
  /** Staff besides the principals (levels 1–3), spread over the schools. */
  staff: number;
  /** Audit records in all (the plans' own records, the rest answer edits). */
  auditRecords: number;
  /** Review flags on each untouched rolled-over plan (a rollover flags every answer to confirm). */
  flagsPerCopy: number;
}

export const DISTRICT_SIZE: DistrictSize = { schools: 1_600, staff: 400, auditRecords: 100_000, flagsPerCopy: 29 };

export const districtSchoolName = (index: number) => `District School ${String(index).padStart(4, '0')}`;
export const districtPrincipalEmail = (index: number) => `principal.d${String(index).padStart(4, '0')}@example.org`;

/**
 * What a school's plans look like, by its number n (1-based), so that tests can count them on their
 * own. Last year: approved (n % 10 < 7), submitted (7), under review (8), left a draft (9).
 * This year, copies of last year's plans: submitted (n % 20 = 0), edited drafts (n % 20 in 1–4: two
 * steps written, flags half cleared), and untouched copies (the rest, every flag still set).
 */
export const DISTRICT_RULES = {
  lastYearStatus: (n: number) => (n % 10 < 7 ? 'approved' : n % 10 === 7 ? 'submitted' : n % 10 === 8 ? 'under_review' : 'draft'),
  thisYearStatus: (n: number) => (n % 20 === 0 ? 'submitted' : 'draft'),
  thisYearEdited: (n: number) => n % 20 >= 1 && n % 20 <= 4,
  /** Open comments on this year's plan: two on every tenth school. */
  openComments: (n: number) => (n % 10 === 3 ? 2 : 0),
};

/** Review flags a rollover sets: the bank's first questions, asked to be confirmed. */
function reviewFlags(count: number): NeedsUpdateFlag[] {
  const questions = BUNDLED_BANK.steps.flatMap((step) => step.questions.map((question) => ({ stepKey: step.key, questionId: question.id })));
  return questions.slice(0, count).map((question) => ({ ...question, reason: 'revisit', label: NEEDS_UPDATE_LABELS.revisit }));
}

export interface GrownDistrict {
  thisYear: string;
  lastYear: string;
  schools: number;
  /** This year's deadlines: on steps that every tenth school (n % 10 = 9) has not completed. */
  deadlines: Deadline[];
}

/** Deadlines of the year on the 6th, 8th, 10th and 12th steps: two in autumn, two in spring. */
function yearDeadlines(thisYear: string): Deadline[] {
  const [first, second] = [thisYear.slice(0, 4), thisYear.slice(5)];
  return [
    [6, `${first}-09-15`],
    [8, `${first}-10-15`],
    [10, `${second}-03-01`],
    [12, `${second}-05-01`],
  ].map(([ord, dueDate]) => {
    const step = BUNDLED_BANK.steps[(ord as number) - 1]!;
    return { stepKey: step.key, label: step.title, dueDate: dueDate as string };
  });
}

/** Grows the district in `db` (a migrated database, with or without the demo seed). */
export async function growDistrict(db: Database, size: DistrictSize = DISTRICT_SIZE, now = new Date()): Promise<GrownDistrict> {
  const thisYear = currentSchoolYear(now);
  const lastYear = previousSchoolYear(thisYear);
  const stepKeys = BUNDLED_BANK.steps.map((step) => step.key);
  const flags = reviewFlags(size.flagsPerCopy);
  const halfFlags = flags.slice(0, Math.ceil(flags.length / 2));
  const lastYearStart = `${lastYear.slice(0, 4)}-08-15T12:00:00Z`;
  const rolledOverAt = `${thisYear.slice(0, 4)}-08-01T12:00:00Z`;
  const span = Math.max(1, now.getTime() - Date.parse(lastYearStart));
  const run = (query: ReturnType<typeof sql>) => db.execute(query);
  // Ids are 24 hex digits derived from a kind and the school's number, so they never collide.
  const idOf = (kind: string, n: ReturnType<typeof sql>) => sql`substr(md5(${`district-${kind}-`}::text || ${n}::text), 1, 24)`;
  const school = (n: ReturnType<typeof sql>) => sql`'District School ' || lpad(${n}::text, 4, '0')`;
  const principal = (n: ReturnType<typeof sql>) => sql`'principal.d' || lpad(${n}::text, 4, '0') || '@example.org'`;
  const bankVersion = sql`(select max(version) from question_bank_versions where status = 'published')`;
  const n = sql.raw('n');

  await run(sql`insert into users (id, email, name, level, school_name, title, last_signed_in_at)
    select ${idOf('principal', n)}, ${principal(n)}, 'Principal ' || lpad(n::text, 4, '0'), 4, ${school(n)}, 'Principal',
      ${now.toISOString()}::timestamptz - (n % 30) * interval '1 day'
    from generate_series(1, ${size.schools}::int) n`);
  await run(sql`insert into users (id, email, name, level, school_name, title)
    select ${idOf('staff', n)}, 'staff.d' || lpad(n::text, 4, '0') || '@example.org', 'Staff Member ' || lpad(n::text, 4, '0'),
      1 + n % 3, 'District School ' || lpad((1 + n % ${size.schools}::int)::text, 4, '0'), 'Teacher'
    from generate_series(1, ${size.staff}::int) n`);

  await run(sql`insert into school_year_settings (school_year, archived, question_bank_version, term_start, term_end)
    values (${lastYear}, true, ${bankVersion}, ${`${lastYear.slice(0, 4)}-08-15`}, ${`${lastYear.slice(5)}-06-15`})
    on conflict (school_year) do update set archived = true`);
  const deadlines = yearDeadlines(thisYear);
  await run(sql`insert into school_year_settings (school_year, question_bank_version, deadlines, term_start, term_end)
    values (${thisYear}, ${bankVersion}, ${JSON.stringify(deadlines)}::jsonb, ${`${thisYear.slice(0, 4)}-08-15`}, ${`${thisYear.slice(5)}-06-15`})
    on conflict (school_year) do update set deadlines = excluded.deadlines`);

  // Last year: every school's plan, in its final state.
  await run(sql`insert into plans (id, school_name, school_year, status, user_id, principal_email, question_bank_version, submitted_at, reviewed_at, created_at, updated_at)
    select ${idOf('plan-last', n)}, ${school(n)}, ${lastYear},
      (case when n % 10 < 7 then 'approved' when n % 10 = 7 then 'submitted' when n % 10 = 8 then 'under_review' else 'draft' end)::plan_status,
      ${idOf('principal', n)}, ${principal(n)}, ${bankVersion},
      case when n % 10 < 9 then ${lastYearStart}::timestamptz + interval '200 days' end,
      case when n % 10 < 7 then ${lastYearStart}::timestamptz + interval '220 days' end,
      ${lastYearStart}::timestamptz, ${lastYearStart}::timestamptz + interval '220 days'
    from generate_series(1, ${size.schools}::int) n`);
  await run(sql`insert into plan_steps (form_id, step_key, completed, data, revision_count, last_updated)
    select ${idOf('plan-last', n)}, key, n % 10 < 9 or ord <= 5, '{}'::jsonb, 3 + n % 7, ${lastYearStart}::timestamptz + interval '100 days'
    from generate_series(1, ${size.schools}::int) n, jsonb_array_elements_text(${JSON.stringify(stepKeys)}::jsonb) with ordinality as steps(key, ord)`);

  // This year: the rollover's copies, with its review flags; the copies of the year's first weeks.
  await run(sql`insert into plans (id, school_name, school_year, status, user_id, principal_email, question_bank_version, copied_from_id, needs_update, submitted_at, created_at, updated_at)
    select ${idOf('plan-this', n)}, ${school(n)}, ${thisYear},
      (case when n % 20 = 0 then 'submitted' else 'draft' end)::plan_status,
      ${idOf('principal', n)}, ${principal(n)}, ${bankVersion}, ${idOf('plan-last', n)},
      case when n % 20 between 1 and 4 then ${JSON.stringify(halfFlags)}::jsonb when n % 20 = 0 then '[]'::jsonb else ${JSON.stringify(flags)}::jsonb end,
      case when n % 20 = 0 then ${rolledOverAt}::timestamptz + interval '40 days' end,
      ${rolledOverAt}::timestamptz, ${rolledOverAt}::timestamptz + (n % 20) * interval '1 day'
    from generate_series(1, ${size.schools}::int) n`);
  // A copy's steps keep last year's completion with no write of their own; edited and submitted plans wrote two.
  await run(sql`insert into plan_steps (form_id, step_key, completed, data, revision_count, last_updated)
    select ${idOf('plan-this', n)}, key, n % 10 < 9 or ord <= 5, '{}'::jsonb,
      case when (n % 20 <= 4) and ord in (2, 3) then 2 else 0 end,
      case when (n % 20 <= 4) and ord in (2, 3) then ${rolledOverAt}::timestamptz + interval '20 days' end
    from generate_series(1, ${size.schools}::int) n, jsonb_array_elements_text(${JSON.stringify(stepKeys)}::jsonb) with ordinality as steps(key, ord)`);

  await run(sql`insert into comments (id, form_id, step_key, comment, author_id, author_name, status, created_at)
    select ${idOf('comment', sql`n || '-' || c`)}, ${idOf('plan-this', n)}, ${stepKeys[1]!}, 'Please check the targets.', ${idOf('principal', n)},
      'Principal ' || lpad(n::text, 4, '0'), 'open', ${rolledOverAt}::timestamptz + interval '30 days'
    from generate_series(1, ${size.schools}::int) n, generate_series(1, 2) c where n % 10 = 3`);

  // The audit log: each plan's creation and status changes, the rollover, then answer edits up to the size.
  await run(sql`insert into audit_logs (id, actor_id, actor_email, action, target_type, target_id, summary, created_at)
    select ${idOf('audit-create', n)}, ${idOf('principal', n)}, ${principal(n)}, 'plan.create', 'plan', ${idOf('plan-last', n)},
      jsonb_build_object('after', jsonb_build_object('schoolName', ${school(n)}, 'schoolYear', ${lastYear}::text)), ${lastYearStart}::timestamptz
    from generate_series(1, ${size.schools}::int) n`);
  await run(sql`insert into audit_logs (id, actor_id, actor_email, action, target_type, target_id, summary, created_at)
    select ${idOf('audit-submit', n)}, ${idOf('principal', n)}, ${principal(n)}, 'plan.submit', 'plan', ${idOf('plan-last', n)},
      '{"before":{"status":"draft"},"after":{"status":"submitted"}}'::jsonb, ${lastYearStart}::timestamptz + interval '200 days'
    from generate_series(1, ${size.schools}::int) n where n % 10 < 9`);
  await run(sql`insert into audit_logs (id, actor_id, actor_email, action, target_type, target_id, summary, created_at)
    select ${idOf('audit-submit-this', n)}, ${idOf('principal', n)}, ${principal(n)}, 'plan.submit', 'plan', ${idOf('plan-this', n)},
      '{"before":{"status":"draft"},"after":{"status":"submitted"}}'::jsonb, ${rolledOverAt}::timestamptz + interval '40 days'
    from generate_series(1, ${size.schools}::int) n where n % 20 = 0`);
  await run(sql`insert into audit_logs (id, actor_id, actor_email, action, target_type, target_id, summary, created_at)
    values (${idOf('audit-rollover', sql`0`)}, null, null, 'district.rollover', 'schoolYear', ${lastYear},
      ${JSON.stringify({ sourceYear: lastYear, targetYear: thisYear, considered: size.schools, created: size.schools })}::jsonb, ${rolledOverAt})`);
  const [written] = await rowsOf<{ count: number }>(db, sql`select count(*)::int as count from audit_logs`);
  await run(sql`insert into audit_logs (id, actor_id, actor_email, action, target_type, target_id, summary, created_at)
    select ${idOf('audit-edit', n)}, ${idOf('principal', sql`(1 + n % ${size.schools}::int)`)}, ${principal(sql`(1 + n % ${size.schools}::int)`)},
      'answer.edited', 'plan', case when n % 2 = 0 then ${idOf('plan-last', sql`(1 + n % ${size.schools}::int)`)} else ${idOf('plan-this', sql`(1 + n % ${size.schools}::int)`)} end,
      ${JSON.stringify({ stepKey: stepKeys[1] })}::jsonb, ${lastYearStart}::timestamptz + (n::float8 / ${size.auditRecords}::float8) * ${`${span} milliseconds`}::interval
    from generate_series(1, greatest(0, ${size.auditRecords - (written?.count ?? 0)}::int)) n`);
  await run(sql`analyze`);
  return { thisYear, lastYear, schools: size.schools, deadlines };
}
