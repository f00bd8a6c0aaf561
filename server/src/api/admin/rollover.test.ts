/**
 * District rollover over HTTP against a real server, on a district of 205 schools seeded straight
 * into the database (plans and their 14 answered steps): created / skipped / errors, the source
 * year archived afterwards, every copy's answers equal to its source's, idempotence, `force`
 * filling existing plans without touching what they hold, progress read back from the admin
 * route, and who may start it (Super Admins only) with which bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, sql } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { isStepComplete, type StepAnswers } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { planSteps, plans, schoolYearSettings, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { sampleStepAnswers } from '../../seed/sampleAnswers.ts';

/** More than one batch of 200. */
const SCHOOLS = 205;
const SOURCE = '2401-2402';
const TARGET = '2402-2403';
const STEPS = BUNDLED_BANK.steps;
/** Schools that already have a target-year plan before the rollover: skipped, then filled with force. */
const PRE_CREATED = [0, 37, 101, 150, 204];
const schoolName = (index: number) => `Rollover School ${String(index + 1).padStart(3, '0')}`;

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let ap: HttpClient;
let principalId: string;
/** Source plan id per school. */
const sourceIds = new Map<string, string>();
/** Pre-created target plan id per school. */
const preCreatedIds = new Map<string, string>();

const db = () => server.services.storage.db;
const rollover = (client: HttpClient, body: unknown) => client.post('/api/admin/forms/rollover', body);

/** Realistic answers, varying by school: some schools left later steps empty. */
function answersFor(index: number, stepIndex: number): StepAnswers {
  const emptyFrom = index % 4 === 0 ? 13 : index % 7 === 0 ? 10 : STEPS.length;
  return stepIndex < emptyFrom ? sampleStepAnswers(STEPS[stepIndex]!, schoolName(index)) : {};
}

async function insertInChunks<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>, size = 400) {
  for (let start = 0; start < rows.length; start += size) await insert(rows.slice(start, start + size));
}

/** Step rows of plans, by plan id then step key. */
async function stepsOfPlans(ids: string[]) {
  const byPlan = new Map<string, Map<string, typeof planSteps.$inferSelect>>();
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await db()
      .select()
      .from(planSteps)
      .where(inArray(planSteps.formId, ids.slice(start, start + 500)));
    for (const row of rows) {
      if (!byPlan.has(row.formId)) byPlan.set(row.formId, new Map());
      byPlan.get(row.formId)!.set(row.stepKey, row);
    }
  }
  return byPlan;
}

async function plansOfYear(schoolYear: string) {
  return db().select().from(plans).where(eq(plans.schoolYear, schoolYear));
}

async function archived(schoolYear: string): Promise<boolean | undefined> {
  const [row] = await db().select({ archived: schoolYearSettings.archived }).from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, schoolYear));
  return row?.archived;
}

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal, ap] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org', 'ap.harbor@example.org']);
  const [owner] = await db().select().from(users).where(eq(users.email, 'principal.harbor@example.org'));
  principalId = owner!.id;

  // The source year: one plan per school, with 14 step rows of realistic answers. A few plans carry
  // things a copy must leave behind.
  const planRows: (typeof plans.$inferInsert)[] = [];
  const stepRows: (typeof planSteps.$inferInsert)[] = [];
  for (let index = 0; index < SCHOOLS; index++) {
    const id = newId();
    sourceIds.set(schoolName(index), id);
    const extras = index % 10 === 3;
    planRows.push({
      id,
      schoolName: schoolName(index),
      schoolYear: SOURCE,
      status: index % 3 === 0 ? 'approved' : index % 3 === 1 ? 'submitted' : 'draft',
      userId: principalId,
      principalEmail: `principal.${index}@example.org`,
      assignedTo: index % 5 === 0 ? `ap.${index}@example.org` : null,
      questionBankVersion: BUNDLED_BANK.version,
      ...(extras
        ? {
            sharedWithEmails: [`teacher.${index}@example.org`],
            attestation: { confirmed: true, name: 'A Principal', signedAt: '2025-05-01T00:00:00.000Z', signedBy: `principal.${index}@example.org` },
            allowEditsWhenArchived: true,
            reviewComment: 'Fine',
          }
        : {}),
    });
    STEPS.forEach((step, stepIndex) => {
      const data = answersFor(index, stepIndex);
      const answered = Object.keys(data).length > 0;
      stepRows.push({ formId: id, stepKey: step.key, data, completed: answered && isStepComplete(step, data), revisionCount: answered ? 2 : 0 });
    });
  }
  await insertInChunks(planRows, (chunk) => db().insert(plans).values(chunk));
  await insertInChunks(stepRows, (chunk) => db().insert(planSteps).values(chunk));

  // Target-year plans that already exist for a few schools, with one answer written.
  for (const index of PRE_CREATED) {
    const id = newId();
    preCreatedIds.set(schoolName(index), id);
    await db()
      .insert(plans)
      .values({ id, schoolName: schoolName(index), schoolYear: TARGET, userId: principalId, questionBankVersion: BUNDLED_BANK.version });
    await db()
      .insert(planSteps)
      .values(
        STEPS.map((step) => ({
          formId: id,
          stepKey: step.key,
          data: (step.key === 'attendancePlan' ? { att_coordinatorName: 'Already in the target' } : {}) as StepAnswers,
        })),
      );
  }
});
afterAll(() => server?.stop());

describe('POST /api/admin/forms/rollover', () => {
  it('is for Super Admins only, and refuses bad bodies; nothing happens', async () => {
    for (const client of [principal, ap]) {
      expect((await rollover(client, { sourceYear: SOURCE, targetYear: TARGET })).status).toBe(403);
      expect((await client.get(`/api/admin/forms/rollover?sourceYear=${SOURCE}&targetYear=${TARGET}`)).status).toBe(403);
    }
    for (const body of [
      { sourceYear: SOURCE, targetYear: SOURCE },
      { sourceYear: SOURCE },
      { targetYear: TARGET },
      { sourceYear: '2401', targetYear: TARGET },
      { sourceYear: SOURCE, targetYear: TARGET, force: 'yes' },
      { sourceYear: SOURCE, targetYear: TARGET, extra: 1 },
    ]) {
      const response = await rollover(admin, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect(await plansOfYear(TARGET)).toHaveLength(PRE_CREATED.length);
    expect(await archived(SOURCE)).not.toBe(true);
    expect((await admin.get(`/api/admin/forms/rollover?sourceYear=${SOURCE}&targetYear=${TARGET}`)).status).toBe(404);
    expect((await admin.get(`/api/admin/forms/rollover?sourceYear=${SOURCE}`)).status).toBe(400);
  });

  it('refuses an archived target year and leaves the source year live', async () => {
    const source = '2410-2411';
    const target = '2411-2412';
    const id = newId();
    await db()
      .insert(plans)
      .values({ id, schoolName: 'Archived Target School', schoolYear: source, userId: principalId, questionBankVersion: BUNDLED_BANK.version });
    expect((await admin.put('/api/school-year', { schoolYear: target, archived: true })).status).toBe(200);
    const { status } = await rollover(admin, { sourceYear: source, targetYear: target });
    expect(status).toBe(400);
    expect(await plansOfYear(target)).toEqual([]);
    expect(await archived(source)).not.toBe(true);
    // A failed run has no report to read back.
    const progress = await admin.get(`/api/admin/forms/rollover?sourceYear=${source}&targetYear=${target}`);
    expect(progress.body.progress).toMatchObject({ state: 'failed' });
    expect(progress.body).not.toHaveProperty('result');
  });

  it('reports a school that fails without stopping the others, and still archives the source year', async () => {
    const source = '2420-2421';
    const target = '2421-2422';
    const names = ['Error Case A', 'Error Case B', 'Error Case C', 'Error Case D'];
    for (const name of names) {
      await db().insert(plans).values({ id: newId(), schoolName: name, schoolYear: source, userId: principalId, questionBankVersion: BUNDLED_BANK.version });
    }
    // The database refuses one school's new plan (as a constraint or a broken row would).
    await db().execute(sql`create function refuse_error_case_c() returns trigger language plpgsql as $$
      begin
        if new.school_name = 'Error Case C' and new.school_year = '2421-2422' then raise exception 'refused by the test'; end if;
        return new;
      end $$`);
    await db().execute(sql`create trigger refuse_error_case_c before insert on plans for each row execute function refuse_error_case_c()`);
    try {
      const { status, body } = await rollover(admin, { sourceYear: source, targetYear: target });
      expect(status).toBe(200);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].school).toBe('Error Case C');
      expect(typeof body.errors[0].error).toBe('string');
      expect(body.created.map((entry: { school: string }) => entry.school).sort()).toEqual(['Error Case A', 'Error Case B', 'Error Case D']);
      expect((await plansOfYear(target)).map((plan) => plan.schoolName).sort()).toEqual(['Error Case A', 'Error Case B', 'Error Case D']);
      expect(await archived(source)).toBe(true);
      expect((await admin.get(`/api/admin/forms/rollover?sourceYear=${source}&targetYear=${target}`)).body.progress).toMatchObject({
        state: 'done',
        total: 4,
        created: 3,
        errors: 1,
      });
    } finally {
      await db().execute(sql`drop trigger refuse_error_case_c on plans`);
      await db().execute(sql`drop function refuse_error_case_c()`);
    }
  });

  it('copies every school’s plan, skips schools that have one, reports progress and archives the source year', async () => {
    const sourcePlans = await plansOfYear(SOURCE);
    expect(sourcePlans).toHaveLength(SCHOOLS);
    const sourceSteps = await stepsOfPlans(sourcePlans.map((plan) => plan.id));
    const preCreatedBefore = await stepsOfPlans([...preCreatedIds.values()]);

    const { status, body } = await rollover(admin, { sourceYear: SOURCE, targetYear: TARGET });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, sourceYear: SOURCE, targetYear: TARGET, considered: SCHOOLS, errors: [], archivedYear: SOURCE });
    const skippedSchools = PRE_CREATED.map(schoolName);
    expect([...body.skipped].sort((a, b) => a.school.localeCompare(b.school))).toEqual(
      skippedSchools.map((school) => ({ school, existingFormId: preCreatedIds.get(school) })),
    );
    expect(body.created).toHaveLength(SCHOOLS - PRE_CREATED.length);
    expect(new Set(body.created.map((entry: { school: string }) => entry.school))).toEqual(
      new Set([...sourceIds.keys()].filter((school) => !skippedSchools.includes(school))),
    );
    expect(new Set(body.created.map((entry: { formId: string }) => entry.formId)).size).toBe(body.created.length);

    // The source year is archived, as the year settings route shows.
    const year = await principal.get(`/api/school-year?schoolYear=${SOURCE}`);
    expect(year.body).toMatchObject({ schoolYear: SOURCE, archived: true, planCounts: { total: SCHOOLS } });

    // Progress, for clients that poll.
    const progress = await admin.get(`/api/admin/forms/rollover?sourceYear=${SOURCE}&targetYear=${TARGET}`);
    expect(progress.status).toBe(200);
    expect(progress.body.progress).toMatchObject({
      state: 'done',
      sourceYear: SOURCE,
      targetYear: TARGET,
      total: SCHOOLS,
      processed: SCHOOLS,
      created: SCHOOLS - PRE_CREATED.length,
      skipped: PRE_CREATED.length,
      errors: 0,
    });
    // A finished run gives back its whole report.
    expect(progress.body.result).toEqual(body);

    // Every copy: the source's answers exactly, completion where answered, the copy rules.
    const targetPlans = await plansOfYear(TARGET);
    expect(targetPlans).toHaveLength(SCHOOLS);
    const [targetSettings] = await db().select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, TARGET));
    const bySchool = new Map(sourcePlans.map((plan) => [plan.schoolName, plan]));
    const copies = targetPlans.filter((plan) => !preCreatedIds.has(plan.schoolName));
    const copySteps = await stepsOfPlans(copies.map((plan) => plan.id));
    for (const copy of copies) {
      const source = bySchool.get(copy.schoolName)!;
      expect(body.created).toContainEqual({ school: copy.schoolName, formId: copy.id });
      expect(copy).toMatchObject({
        status: 'draft',
        copiedFromId: source.id,
        userId: source.userId,
        principalEmail: source.principalEmail,
        assignedTo: source.assignedTo,
        questionBankVersion: targetSettings!.questionBankVersion,
        sharedWithEmails: [],
        attestation: null,
        allowEditsWhenArchived: false,
        reviewComment: null,
      });
      const from = sourceSteps.get(source.id)!;
      const to = copySteps.get(copy.id)!;
      expect(to.size, copy.schoolName).toBe(STEPS.length);
      for (const step of STEPS) {
        const sourceStep = from.get(step.key)!;
        expect(to.get(step.key)!.data, `${copy.schoolName} ${step.key}`).toEqual(sourceStep.data);
        expect(to.get(step.key)!.completed, `${copy.schoolName} ${step.key}`).toBe(Object.keys(sourceStep.data).length > 0 && sourceStep.completed);
      }
    }
    // Copies carry review flags (answered questions about people and dates), and need an attestation before submit.
    for (const copy of copies) {
      expect(copy.needsUpdate, copy.schoolName).toContainEqual(
        expect.objectContaining({ stepKey: 'attendancePlan', questionId: 'att_coordinatorName', reason: 'revisit' }),
      );
    }
    const submit = await principal.put(`/api/forms/${copies[0]!.id}`, { action: 'submit' });
    expect(submit.status).toBe(400);
    expect(submit.body.error).toBe('Attestation required');
    // Skipped schools' plans are untouched.
    expect(await stepsOfPlans([...preCreatedIds.values()])).toEqual(preCreatedBefore);
    // The source plans are untouched too.
    expect(await stepsOfPlans(sourcePlans.map((plan) => plan.id))).toEqual(sourceSteps);

    // The audit log: one record per created plan, named by school and year, grouped under the run's record by its id.
    const run = (await admin.get('/api/users/audit-logs?action=district.rollover')).body.logs.find(
      (record: { summary: { sourceYear?: string } }) => record.summary.sourceYear === SOURCE,
    );
    expect(run.summary).toMatchObject({ sourceYear: SOURCE, targetYear: TARGET, created: body.created.length });
    const records = [];
    for (let page = 1; ; page++) {
      const { logs } = (await admin.get(`/api/users/audit-logs?action=plan.rollover&limit=200&page=${page}`)).body;
      records.push(...logs.filter((record: { summary: { runId?: string } }) => record.summary.runId === run.summary.runId));
      if (logs.length < 200) break;
    }
    expect(records.map((record) => [record.targetId, record.targetName]).sort()).toEqual(
      body.created.map((entry: { school: string; formId: string }) => [entry.formId, `${entry.school} ${TARGET}`]).sort(),
    );
    expect(records[0]).toMatchObject({ actorEmail: 'superadmin@example.org', targetType: 'plan', summary: { sourceYear: SOURCE, targetYear: TARGET } });
  });

  it('is idempotent: a second run creates nothing and skips every school', async () => {
    const before = await plansOfYear(TARGET);
    const { status, body } = await rollover(admin, { sourceYear: SOURCE, targetYear: TARGET });
    expect(status).toBe(200);
    expect(body).toMatchObject({ considered: SCHOOLS, created: [], errors: [], archivedYear: SOURCE });
    expect(body.skipped).toHaveLength(SCHOOLS);
    const idBySchool = new Map(before.map((plan) => [plan.schoolName, plan.id]));
    for (const entry of body.skipped as { school: string; existingFormId: string }[]) expect(entry.existingFormId).toBe(idBySchool.get(entry.school));
    expect(await plansOfYear(TARGET)).toEqual(before);
    const progress = await admin.get(`/api/admin/forms/rollover?sourceYear=${SOURCE}&targetYear=${TARGET}`);
    expect(progress.body.progress).toMatchObject({ state: 'done', processed: SCHOOLS, created: 0, skipped: SCHOOLS });
    // The report is this run's, not the first one's.
    expect(progress.body.result).toEqual(body);
  });

  it('with force fills the empty answers of existing plans and keeps what they hold', async () => {
    const sourceSteps = await stepsOfPlans([...sourceIds.values()]);
    const copies = (await plansOfYear(TARGET)).filter((plan) => !preCreatedIds.has(plan.schoolName));
    const copiesBefore = await stepsOfPlans(copies.map((plan) => plan.id));

    const { status, body } = await rollover(admin, { sourceYear: SOURCE, targetYear: TARGET, force: true });
    expect(status).toBe(200);
    expect(body).toMatchObject({ considered: SCHOOLS, created: [], skipped: [], errors: [] });
    expect(await plansOfYear(TARGET)).toHaveLength(SCHOOLS);

    const filled = await stepsOfPlans([...preCreatedIds.values()]);
    for (const [school, id] of preCreatedIds) {
      const from = sourceSteps.get(sourceIds.get(school)!)!;
      const to = filled.get(id)!;
      expect(to.get('attendancePlan')!.data.att_coordinatorName, school).toBe('Already in the target');
      for (const step of STEPS) {
        const expected = { ...from.get(step.key)!.data, ...(step.key === 'attendancePlan' ? { att_coordinatorName: 'Already in the target' } : {}) };
        expect(to.get(step.key)!.data, `${school} ${step.key}`).toEqual(expected);
      }
    }
    // Plans that were full copies already had every answer: nothing changes in them.
    expect(await stepsOfPlans(copies.map((plan) => plan.id))).toEqual(copiesBefore);
  });
});
