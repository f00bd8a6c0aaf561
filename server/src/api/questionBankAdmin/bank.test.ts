/**
 * Question-bank administration over HTTP against a real server: reading the published bank, the
 * draft and their differences; whitelisted question updates; new questions (new stable ids) and
 * steps; step title and intro; reordering (a permutation or 400); deactivation (the question stays
 * in the bank, answers keep their id, it leaves visibility and completion); discarding the draft;
 * publishing (old published archived, draft published, new draft cloned, optional pin to a year);
 * edits that would break the bank (400, nothing changes); the question-bank read per year; and
 * the published version cached in the key-value store.
 *
 * The bank is one per district, so these tests run in order on one server: each describes the
 * state it starts from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, type Question, type QuestionBank, type Step, type StepAnswers } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn, signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { auditLogs, planSteps, plans, questionBankVersions, schoolYearSettings, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';

const CURRENT = currentSchoolYear();
const ADMIN_BANK = '/api/admin/question-bank';
const V1 = BUNDLED_BANK.version;

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let teacher: HttpClient;

const db = () => server.services.storage.db;

interface AdminView {
  published: QuestionBank | null;
  draft: QuestionBank | null;
  differences: Record<'addedQuestions' | 'changedQuestions' | 'deactivatedQuestions' | 'addedSteps' | 'changedSteps' | 'reorderedSteps', string[]>;
  versions: { version: number; status: string; schoolYear: string | null; publishedAt: string | null }[];
}

async function view(): Promise<AdminView> {
  const { status, body } = await admin.get<AdminView>(ADMIN_BANK);
  expect(status).toBe(200);
  return body;
}

const stepOf = (bank: QuestionBank | null, key: string): Step => {
  const step = bank?.steps.find((candidate) => candidate.key === key);
  if (!step) throw new Error(`no step ${key}`);
  return step;
};
const questionOf = (bank: QuestionBank | null, id: string): Question => {
  for (const step of bank?.steps ?? []) {
    const question = step.questions.find((candidate) => candidate.id === id);
    if (question) return question;
  }
  throw new Error(`no question ${id}`);
};

async function draftRows() {
  return db().select().from(questionBankVersions).where(eq(questionBankVersions.status, 'draft'));
}

async function auditCount(): Promise<number> {
  return (await db().select({ id: auditLogs.id }).from(auditLogs)).length;
}

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal, teacher] = await signInAll(server.url, ['superadmin@example.org', 'principal.harbor@example.org', 'teacher.harbor@example.org']);
});
afterAll(() => server?.stop());

/** A draft equal to the published bank. */
const NO_DIFFERENCES = { addedQuestions: [], changedQuestions: [], deactivatedQuestions: [], addedSteps: [], changedSteps: [], reorderedSteps: [] };

describe('question-bank administration', () => {
  it('reads the published bank, no draft yet and no differences; Super Admins only', async () => {
    const body = await view();
    expect(body.published).toEqual({ version: V1, steps: BUNDLED_BANK.steps });
    expect(body.draft).toBeNull();
    expect(body.differences).toEqual(NO_DIFFERENCES);
    expect(body.versions).toEqual([expect.objectContaining({ version: V1, status: 'published' })]);

    for (const client of [principal, teacher]) {
      expect((await client.get(ADMIN_BANK)).status).toBe(403);
      expect((await client.put(`${ADMIN_BANK}/questions/att_barriers`, { title: 'No' })).status).toBe(403);
      expect(
        (await client.post(`${ADMIN_BANK}/questions`, { stepKey: 'attendancePlan', question: { number: '1', title: 'No', type: 'text', required: false } }))
          .status,
      ).toBe(403);
      expect((await client.post(`${ADMIN_BANK}/steps`, { key: 'noStep', title: 'No' })).status).toBe(403);
      expect((await client.put(`${ADMIN_BANK}/steps/attendancePlan`, { title: 'No' })).status).toBe(403);
      expect((await client.post(`${ADMIN_BANK}/questions/att_barriers/active`, { active: false })).status).toBe(403);
      expect((await client.delete(`${ADMIN_BANK}/draft`)).status).toBe(403);
      expect((await client.post(`${ADMIN_BANK}/publish`, {})).status).toBe(403);
    }
    expect((await new HttpClient(server.url).get(ADMIN_BANK)).status).toBe(401);
    expect(await draftRows()).toEqual([]);
  });

  it('updates whitelisted fields of a question in the draft, leaving the published bank as it is', async () => {
    const before = questionOf(BUNDLED_BANK, 'att_barriers');
    const { status, body } = await admin.put(`${ADMIN_BANK}/questions/att_barriers`, {
      title: 'Which barriers did you find this year?',
      help: 'Think of transport and health.',
    });
    expect(status).toBe(200);
    expect(body.version).toBe(V1 + 1);
    expect(questionOf(body, 'att_barriers')).toEqual({ ...before, title: 'Which barriers did you find this year?', help: 'Think of transport and health.' });

    const current = await view();
    expect(current.published).toEqual({ version: V1, steps: BUNDLED_BANK.steps });
    expect(current.draft!.version).toBe(V1 + 1);
    expect(questionOf(current.draft, 'att_barriers').title).toBe('Which barriers did you find this year?');
    expect(current.differences.changedQuestions).toEqual(['att_barriers']);
    expect(current.versions.map((v) => [v.version, v.status])).toEqual([
      [V1, 'published'],
      [V1 + 1, 'draft'],
    ]);

    // null removes an optional field.
    const removed = await admin.put(`${ADMIN_BANK}/questions/att_barriers`, { help: null });
    expect(removed.status).toBe(200);
    expect('help' in questionOf(removed.body, 'att_barriers')).toBe(false);
    // A select's options and a question's type change together.
    const retyped = await admin.put(`${ADMIN_BANK}/questions/att_lastYearRate`, {
      type: 'select',
      options: [
        { value: 'below-90', label: 'Below 90%' },
        { value: '90-or-more', label: '90% or more' },
      ],
    });
    expect(retyped.status).toBe(200);
    expect(questionOf(retyped.body, 'att_lastYearRate')).toMatchObject({ type: 'select', options: [{ value: 'below-90' }, { value: '90-or-more' }] });
  });

  it('refuses unknown fields, the id, empty bodies and unknown questions', async () => {
    const draftBefore = (await view()).draft;
    for (const body of [
      { foo: 'bar' },
      { id: 'att_renamed' },
      { title: 'Fine', id: 'att_renamed' },
      { active: false },
      {},
      { title: '' },
      { required: 'yes' },
      { type: 'date' },
    ]) {
      const response = await admin.put(`${ADMIN_BANK}/questions/att_barriers`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect((await admin.put(`${ADMIN_BANK}/questions/no_such_question`, { title: 'x' })).status).toBe(404);
    expect((await admin.put(`${ADMIN_BANK}/questions/Bad-Id`, { title: 'x' })).status).toBe(400);
    expect((await view()).draft).toEqual(draftBefore);
  });

  it('refuses an edit that would make the bank invalid with 400, and changes nothing', async () => {
    const draftBefore = (await view()).draft;
    const audits = await auditCount();
    for (const [path, body] of [
      // A required field removed.
      [`${ADMIN_BANK}/questions/att_barriers`, { title: null }],
      // A select without options, options on a text question, a table without columns.
      [`${ADMIN_BANK}/questions/att_strategy`, { type: 'select' }],
      [
        `${ADMIN_BANK}/questions/att_strategy`,
        {
          options: [
            { value: 'a', label: 'A' },
            { value: 'b', label: 'B' },
          ],
        },
      ],
      [`${ADMIN_BANK}/questions/att_strategy`, { type: 'table' }],
      // A gate on a text question; a condition on a question of another step.
      [`${ADMIN_BANK}/questions/att_strategy`, { gatesFollowing: true }],
      [`${ADMIN_BANK}/questions/att_strategy`, { visibleWhen: { questionId: 'sth_hasStudents', equals: true } }],
    ] as const) {
      const response = await admin.put(path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error).toMatch(/invalid/i);
    }
    const invalidNew = await admin.post(`${ADMIN_BANK}/questions`, {
      stepKey: 'attendancePlan',
      question: { number: '6x', title: 'Pick one', type: 'select', required: false },
    });
    expect(invalidNew.status).toBe(400);
    expect((await view()).draft).toEqual(draftBefore);
    expect(await auditCount()).toBe(audits);
  });

  it('adds questions with new stable ids, at a position or at the end', async () => {
    const first = await admin.post(`${ADMIN_BANK}/questions`, {
      stepKey: 'afterSchoolPrograms',
      position: 0,
      question: { number: '12.0', title: 'Who coordinates after-school programs?', type: 'text', required: false, reviewYearly: true },
    });
    expect(first.status).toBe(200);
    const step = stepOf(first.body, 'afterSchoolPrograms');
    const added = step.questions[0]!;
    expect(added).toEqual({
      id: expect.stringMatching(/^q_[0-9a-f]{12}$/),
      number: '12.0',
      title: 'Who coordinates after-school programs?',
      type: 'text',
      required: false,
      reviewYearly: true,
    });
    expect(step.questions.slice(1).map((q) => q.id)).toEqual(stepOf(BUNDLED_BANK, 'afterSchoolPrograms').questions.map((q) => q.id));

    const second = await admin.post(`${ADMIN_BANK}/questions`, {
      stepKey: 'afterSchoolPrograms',
      question: { number: '12.9', title: 'Program partners', type: 'table', required: false, columns: [{ header: 'Partner', type: 'text' }] },
    });
    expect(second.status).toBe(200);
    const last = stepOf(second.body, 'afterSchoolPrograms').questions.at(-1)!;
    expect(last.title).toBe('Program partners');
    expect(last.id).toMatch(/^q_[0-9a-f]{12}$/);
    expect(last.id).not.toBe(added.id);
    // Ids are unique across the whole bank.
    const ids = (second.body as QuestionBank).steps.flatMap((s) => s.questions.map((q) => q.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect((await view()).differences.addedQuestions.sort()).toEqual([added.id, last.id].sort());

    // The caller cannot choose the id, nor add to a step that does not exist.
    expect(
      (
        await admin.post(`${ADMIN_BANK}/questions`, {
          stepKey: 'afterSchoolPrograms',
          question: { id: 'asp_mine', number: '1', title: 'x', type: 'text', required: false },
        })
      ).status,
    ).toBe(400);
    expect(
      (await admin.post(`${ADMIN_BANK}/questions`, { stepKey: 'noSuchStep', question: { number: '1', title: 'x', type: 'text', required: false } })).status,
    ).toBe(404);
    expect((await admin.post(`${ADMIN_BANK}/questions`, { stepKey: 'afterSchoolPrograms', question: { number: '1', title: 'x', type: 'text' } })).status).toBe(
      400,
    );
  });

  it('adds a step and edits a step’s title and intro', async () => {
    const added = await admin.post(`${ADMIN_BANK}/steps`, { key: 'wellnessPlan', title: 'Wellness plan', intro: 'How the school supports wellness.' });
    expect(added.status).toBe(200);
    expect((added.body as QuestionBank).steps.at(-1)).toEqual({
      key: 'wellnessPlan',
      title: 'Wellness plan',
      intro: 'How the school supports wellness.',
      questions: [],
    });
    expect((await admin.post(`${ADMIN_BANK}/steps`, { key: 'wellnessPlan', title: 'Again' })).status).toBe(409);
    expect((await admin.post(`${ADMIN_BANK}/steps`, { key: 'wellness plan', title: 'Bad key' })).status).toBe(400);
    expect((await admin.post(`${ADMIN_BANK}/steps`, { key: 'otherStep' })).status).toBe(400);

    const edited = await admin.put(`${ADMIN_BANK}/steps/wellnessPlan`, { title: 'Student wellness', intro: 'Updated intro.' });
    expect(edited.status).toBe(200);
    expect(stepOf(edited.body, 'wellnessPlan')).toMatchObject({ title: 'Student wellness', intro: 'Updated intro.' });
    const intro = await admin.put(`${ADMIN_BANK}/steps/tableOfContents`, { intro: 'Read the whole plan with your team before you sign.' });
    expect(intro.status).toBe(200);
    expect(stepOf(intro.body, 'tableOfContents')).toMatchObject({
      title: stepOf(BUNDLED_BANK, 'tableOfContents').title,
      intro: 'Read the whole plan with your team before you sign.',
    });

    expect((await admin.put(`${ADMIN_BANK}/steps/tableOfContents`, {})).status).toBe(400);
    expect((await admin.put(`${ADMIN_BANK}/steps/tableOfContents`, { key: 'renamed' })).status).toBe(400);
    expect((await admin.put(`${ADMIN_BANK}/steps/tableOfContents`, { title: '' })).status).toBe(400);
    expect((await admin.put(`${ADMIN_BANK}/steps/noSuchStep`, { title: 'x' })).status).toBe(404);

    const differences = (await view()).differences;
    expect(differences.addedSteps).toEqual(['wellnessPlan']);
    expect(differences.changedSteps).toEqual(['tableOfContents']);
  });

  it('reorders a step’s questions when given a permutation, else 400', async () => {
    const current = stepOf((await view()).draft, 'sexualHarassment').questions.map((q) => q.id);
    const reversed = [...current].reverse();
    const { status, body } = await admin.put(`${ADMIN_BANK}/steps/sexualHarassment/order`, { questionIds: reversed });
    expect(status).toBe(200);
    expect(stepOf(body, 'sexualHarassment').questions.map((q) => q.id)).toEqual(reversed);
    // The questions themselves are unchanged.
    for (const q of stepOf(body, 'sexualHarassment').questions) expect(q).toEqual(questionOf(BUNDLED_BANK, q.id));
    expect((await view()).differences.reorderedSteps).toEqual(['sexualHarassment']);

    for (const questionIds of [
      reversed.slice(1),
      [...reversed, 'sh_extra'],
      [reversed[0], ...reversed.slice(0, -1)],
      [...reversed.slice(1), 'att_barriers'],
      [],
    ]) {
      const response = await admin.put(`${ADMIN_BANK}/steps/sexualHarassment/order`, { questionIds });
      expect(response.status, JSON.stringify(questionIds)).toBe(400);
    }
    expect(stepOf((await view()).draft, 'sexualHarassment').questions.map((q) => q.id)).toEqual(reversed);
  });

  it('deactivates a question: it stays in the bank, and can be reactivated', async () => {
    const off = await admin.post(`${ADMIN_BANK}/questions/sh_posterLocations/active`, { active: false });
    expect(off.status).toBe(200);
    expect(questionOf(off.body, 'sh_posterLocations')).toEqual({ ...questionOf(BUNDLED_BANK, 'sh_posterLocations'), active: false });
    expect((await view()).differences.deactivatedQuestions).toEqual(['sh_posterLocations']);
    const on = await admin.post(`${ADMIN_BANK}/questions/sh_posterLocations/active`, { active: true });
    expect(on.status).toBe(200);
    expect(questionOf(on.body, 'sh_posterLocations')).toEqual(questionOf(BUNDLED_BANK, 'sh_posterLocations'));
    expect((await view()).differences.deactivatedQuestions).toEqual([]);
    expect((await admin.post(`${ADMIN_BANK}/questions/no_such_question/active`, { active: false })).status).toBe(404);
    expect((await admin.post(`${ADMIN_BANK}/questions/sh_posterLocations/active`, { active: 'no' })).status).toBe(400);
  });

  it('discards the draft', async () => {
    expect((await admin.delete(`${ADMIN_BANK}/draft`)).status).toBe(200);
    const afterDiscard = await view();
    expect(afterDiscard.draft).toBeNull();
    expect(afterDiscard.published).toEqual({ version: V1, steps: BUNDLED_BANK.steps });
    expect(afterDiscard.versions.map((v) => v.status)).toEqual(['published']);
    // Nothing to publish now.
    expect((await admin.post(`${ADMIN_BANK}/publish`, {})).status).toBe(400);
    // An invalid edit does not even create a draft.
    expect((await admin.put(`${ADMIN_BANK}/questions/att_strategy`, { type: 'table' })).status).toBe(400);
    expect(await draftRows()).toEqual([]);
  });

  it('a refused publish (no draft) changes nothing, not even the named year’s settings', async () => {
    expect(await draftRows()).toEqual([]);
    const refused = await admin.post(`${ADMIN_BANK}/publish`, { schoolYear: '2750-2751' });
    expect(refused.status).toBe(400);
    expect(await db().select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, '2750-2751'))).toEqual([]);
  });

  it('after a discard, the next edit starts again from the published bank', async () => {
    const edit = await admin.put(`${ADMIN_BANK}/steps/tableOfContents`, { title: 'Contents' });
    expect(edit.status).toBe(200);
    expect(edit.body.steps).toEqual(BUNDLED_BANK.steps.map((step) => (step.key === 'tableOfContents' ? { ...step, title: 'Contents' } : step)));
  });
});

describe('publishing and serving versions', () => {
  const PINNED_YEAR = '2701-2702';
  let published: number;
  let newQuestionId: string;

  it('publishes the draft: the old version archived, the draft published and pinned, a new draft cloned', async () => {
    // Before publishing, the published version number is read through the key-value store.
    expect((await teacher.get('/api/question-bank')).body.version).toBe(V1);
    expect(await server.services.kv.get('bank:published')).toBe(String(V1));

    // The draft (from the previous describe) gets a deactivation and a new question too.
    expect((await admin.post(`${ADMIN_BANK}/questions/asp_programs/active`, { active: false })).status).toBe(200);
    const added = await admin.post(`${ADMIN_BANK}/questions`, {
      stepKey: 'counselingPlan',
      question: { number: '14z', title: 'Counseling partner', type: 'text', required: false },
    });
    newQuestionId = stepOf(added.body, 'counselingPlan').questions.at(-1)!.id;
    const draft = (await view()).draft!;

    const { status, body } = await admin.post(`${ADMIN_BANK}/publish`, { schoolYear: PINNED_YEAR });
    expect(status).toBe(200);
    expect(body).toEqual({ success: true, version: draft.version, draftVersion: draft.version + 1 });
    published = body.version;

    const after = await view();
    expect(after.published).toEqual(draft);
    expect(after.draft).toEqual({ version: draft.version + 1, steps: draft.steps });
    expect(after.differences).toEqual(NO_DIFFERENCES);
    expect(after.versions.map((v) => [v.version, v.status, v.schoolYear])).toEqual([
      [V1, 'archived', null],
      [published, 'published', PINNED_YEAR],
      [published + 1, 'draft', null],
    ]);
    expect(after.versions.find((v) => v.version === published)!.publishedAt).toEqual(expect.any(String));
    // The archived version keeps its content.
    const [archivedRow] = await db().select().from(questionBankVersions).where(eq(questionBankVersions.version, V1));
    expect(archivedRow!.steps).toEqual(BUNDLED_BANK.steps);
    // Pinned to the year.
    const [settings] = await db().select().from(schoolYearSettings).where(eq(schoolYearSettings.schoolYear, PINNED_YEAR));
    expect(settings!.questionBankVersion).toBe(published);
    expect((await teacher.get(`/api/school-year?schoolYear=${PINNED_YEAR}`)).body.questionBankVersion).toBe(published);

    // The shared store's cached published version follows on the next read.
    const read = await teacher.get('/api/question-bank');
    expect(read.body).toMatchObject({ version: published, source: 'published' });
    expect(await server.services.kv.get('bank:published')).toBe(String(published));
  });

  it('publishes without a pin when no year is named', async () => {
    // Kept separate from the pinned year: publish the (unchanged) draft, then the pinned year still pins its version.
    const { status, body } = await admin.post(`${ADMIN_BANK}/publish`, {});
    expect(status).toBe(200);
    expect(body.version).toBe(published + 1);
    const after = await view();
    expect(after.versions.find((v) => v.version === published + 1)).toMatchObject({ status: 'published', schoolYear: null });
    expect(after.versions.find((v) => v.version === published)).toMatchObject({ status: 'archived' });
    expect((await teacher.get(`/api/school-year?schoolYear=${PINNED_YEAR}`)).body.questionBankVersion).toBe(published);
    expect(await server.services.kv.get('bank:published')).not.toBe(String(published));
    expect((await teacher.get('/api/question-bank')).body.version).toBe(published + 1);
    expect(await server.services.kv.get('bank:published')).toBe(String(published + 1));
    expect((await admin.post(`${ADMIN_BANK}/publish`, { schoolYear: '2701' })).status).toBe(400);
  });

  it('serves the version a year pins, a named version, or the published one', async () => {
    const pinned = await teacher.get(`/api/question-bank?schoolYear=${PINNED_YEAR}`);
    expect(pinned.status).toBe(200);
    expect(pinned.body.version).toBe(published);
    expect(stepOf(pinned.body, 'counselingPlan').questions.some((q) => q.id === newQuestionId)).toBe(true);
    // The demo's current year still pins the first version.
    const current = await teacher.get(`/api/question-bank?schoolYear=${CURRENT}`);
    expect(current.body).toEqual({ version: V1, source: 'published', steps: BUNDLED_BANK.steps });
    // A year with no settings gets the published version.
    expect((await teacher.get('/api/question-bank?schoolYear=1970-1971')).body.version).toBe(published + 1);
    expect((await teacher.get(`/api/question-bank?version=${V1}`)).body.version).toBe(V1);
    // Drafts are never served.
    const draftVersion = (await view()).draft!.version;
    expect((await teacher.get(`/api/question-bank?version=${draftVersion}`)).status).toBe(404);
    expect((await teacher.get('/api/question-bank?schoolYear=bad')).status).toBe(400);
  });

  it('a deactivated question leaves visibility and completion, stays in the bank, and its answers keep their id', async () => {
    const bank = (await teacher.get(`/api/question-bank?schoolYear=${PINNED_YEAR}`)).body as QuestionBank;
    expect(questionOf(bank, 'asp_programs')).toMatchObject({ active: false, required: true });
    const stepNumber = bank.steps.findIndex((step) => step.key === 'afterSchoolPrograms') + 1;
    expect(stepNumber).toBe(BUNDLED_BANK.steps.findIndex((step) => step.key === 'afterSchoolPrograms') + 1);

    // A plan of the pinned year: answering the gate alone completes the step, since the required
    // program table no longer counts.
    const created = await principal.post('/api/forms', { schoolName: 'Harbor View Academy', schoolYear: PINNED_YEAR });
    expect(created.status).toBe(200);
    const formId: string = created.body.formId;
    const [planRow] = await db().select().from(plans).where(eq(plans.id, formId));
    expect(planRow!.questionBankVersion).toBe(published);
    const save = { stepData: { data: { asp_offersPrograms: true } }, lastUpdated: null, mergeStrategy: 'last-write-wins' };
    const saved = await principal.put(`/api/forms/${formId}/step/${stepNumber}`, save);
    expect(saved.status).toBe(200);
    expect(saved.body.stepData.completed).toBe(true);

    // The same answer on the first version's plan (this year's Riverside draft) leaves the step incomplete.
    const riverside = await signIn(server.url, 'principal.riverside@example.org');
    const [riversidePlan] = await db()
      .select({ id: plans.id })
      .from(plans)
      .where(and(eq(plans.schoolName, 'Riverside Learning Center'), eq(plans.schoolYear, CURRENT)));
    const oldSave = await riverside.put(`/api/forms/${riversidePlan!.id}/step/${stepNumber}`, save);
    expect(oldSave.status).toBe(200);
    expect(oldSave.body.stepData.completed).toBe(false);

    // Compare leaves it out.
    const compare = await principal.get(`/api/forms/${formId}/compare?steps=all`);
    expect(compare.status).toBe(200);
    expect(compare.body.rows.some((row: { questionId: string }) => row.questionId === 'asp_programs')).toBe(false);
    expect(compare.body.rows.some((row: { questionId: string }) => row.questionId === 'asp_offersPrograms')).toBe(true);

    // A plan copied onto this version keeps an answer to the deactivated question under its id, without a flag.
    const sourceId = newId();
    const [owner] = await db().select().from(users).where(eq(users.email, 'principal.harbor@example.org'));
    const programs = { headers: ['Program', 'Grade level', 'Timeline'], rows: [['Robotics', '6-8', 'Fall']] };
    await db().insert(plans).values({
      id: sourceId,
      schoolName: 'Harbor View Academy',
      schoolYear: '2700-2701',
      userId: owner!.id,
      principalEmail: owner!.email,
      questionBankVersion: V1,
    });
    await db()
      .insert(planSteps)
      .values(
        BUNDLED_BANK.steps.map((step) => ({
          formId: sourceId,
          stepKey: step.key,
          data: (step.key === 'afterSchoolPrograms' ? { asp_offersPrograms: true, asp_programs: programs } : {}) as StepAnswers,
        })),
      );
    expect((await admin.put('/api/school-year', { schoolYear: '2702-2703', questionBankVersion: published })).status).toBe(200);
    const copy = await principal.post(`/api/forms/${sourceId}/duplicate`, { schoolYear: '2702-2703' });
    expect(copy.status).toBe(200);
    const [copyRow] = await db().select().from(plans).where(eq(plans.id, copy.body.formId));
    expect(copyRow!.questionBankVersion).toBe(published);
    const [copiedStep] = await db()
      .select()
      .from(planSteps)
      .where(and(eq(planSteps.formId, copy.body.formId), eq(planSteps.stepKey, 'afterSchoolPrograms')));
    expect(copiedStep!.data).toEqual({ asp_offersPrograms: true, asp_programs: programs });
    expect(copyRow!.needsUpdate.some((flag) => flag.questionId === 'asp_programs')).toBe(false);
    // The step read shows the stored answer under its id.
    const step = await principal.get(`/api/forms/${copy.body.formId}/step/${stepNumber}`);
    expect(step.body.stepData.data.asp_programs).toEqual(programs);
  });

  it('a step added in a later version is served by its number on that version’s plans only', async () => {
    // Step keys are found by number in the plan's pinned bank; this server has not seen the new
    // plan before, so its first request checks the key it assumed against the plan row.
    const YEAR = '2703-2704';
    expect((await admin.post(`${ADMIN_BANK}/steps`, { key: 'wellnessPlan', title: 'Wellness plan' })).status).toBe(200);
    const added = await admin.post(`${ADMIN_BANK}/questions`, {
      stepKey: 'wellnessPlan',
      question: { number: '1', title: 'Wellness lead', type: 'text', required: false },
    });
    const leadId = stepOf(added.body, 'wellnessPlan').questions[0]!.id;
    expect((await admin.post(`${ADMIN_BANK}/publish`, { schoolYear: YEAR })).status).toBe(200);
    const stepNumber = BUNDLED_BANK.steps.length + 1;

    const created = await principal.post('/api/forms', { schoolName: 'Harbor View Academy', schoolYear: YEAR });
    expect(created.status).toBe(200);
    const formId: string = created.body.formId;
    // An answer stored before this server reads the plan (as a copy or another process would).
    await db()
      .update(planSteps)
      .set({ data: { [leadId]: 'Ms. Okafor' } })
      .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, 'wellnessPlan')));
    const read = await principal.get(`/api/forms/${formId}/step/${stepNumber}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ stepKey: 'wellnessPlan', stepNumber, stepData: { data: { [leadId]: 'Ms. Okafor' } } });
    const saved = await principal.put(`/api/forms/${formId}/step/${stepNumber}`, {
      stepData: { data: { [leadId]: 'Mr. Tan' } },
      lastUpdated: null,
      mergeStrategy: 'last-write-wins',
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ stepKey: 'wellnessPlan', stepNumber, stepData: { data: { [leadId]: 'Mr. Tan' } }, revisionCount: 1 });
    const first = await principal.get(`/api/forms/${formId}/step/1`);
    expect(first.body.stepKey).toBe(BUNDLED_BANK.steps[0]!.key);

    const [currentPlan] = await db()
      .select({ id: plans.id })
      .from(plans)
      .where(and(eq(plans.schoolName, 'Harbor View Academy'), eq(plans.schoolYear, CURRENT)));
    const missing = await principal.get(`/api/forms/${currentPlan!.id}/step/${stepNumber}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.any(String) });
  });
});
