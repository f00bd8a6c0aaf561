/**
 * Step saves (PUT /api/forms/:id/step/:n): concurrent saves by several tabs of the lock holder,
 * the merge strategies against real stale clients, dirty-only writes, completion, the archived
 * year, and the save rate limit. Every outcome is read back through GET step and from `plan_steps`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { previousSchoolYear, type Answer } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { planSteps, plans } from '../../storage/schema.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../../testing/demoNames.ts';
import { createPlan, formIdOf, planPath, readStep, saveBody, shareWith, stepPath, stepRow, YEAR } from '../../testing/plans.ts';
import { userByEmail } from '../../testing/users.ts';
import { stepLockKey } from '../../domain/plans/stepLocks.ts';
import { question, questionsOfType, stepAt, validAnswer } from '../../testing/bundledBank.ts';
import { pause } from '../../testing/wait.ts';

let server: TestServer;
let admin: HttpClient;
/** Three tabs of the same principal. */
let tabs: HttpClient[];
// Plans are created by the Super Admin, at most 20 per minute (rl:forms-create): this file makes 20.

beforeAll(async () => {
  server = await startTestServer();
  admin = await signIn(server.url, SUPERADMIN);
  tabs = await Promise.all([1, 2, 3].map(() => signIn(server.url, PRINCIPAL_HARBOR)));
});
afterAll(() => server?.stop());

/** Step 6 (attendancePlan): 17 text/textarea questions and 3 selects, 20 plain-string fields. */
const CONCURRENT_STEP = 6;
const concurrentFields = questionsOfType(CONCURRENT_STEP, 'text', 'textarea', 'select').slice(0, 20);

describe('20 concurrent saves of different fields by the lock holder', () => {
  it('uses 20 distinct fields of one step', () => {
    expect(concurrentFields).toHaveLength(20);
    expect(new Set(concurrentFields.map((q) => q.id)).size).toBe(20);
  });

  for (const strategy of ['merge', 'last-write-wins'] as const) {
    it(`keeps every acknowledged field under ${strategy}, one revision per changing save`, async () => {
      // A plan of its own: the save limit is 30 per user and plan.
      const formId = await createPlan(admin, `Concurrent ${strategy}`, PRINCIPAL_HARBOR);
      const stepKey = stepAt(CONCURRENT_STEP).key;
      const loaded = await Promise.all(tabs.map((tab) => readStep(tab, formId, CONCURRENT_STEP)));
      const base = loaded[0]!;
      expect(base.revisionCount).toBe(0);

      const values = new Map(concurrentFields.map((q, i) => [q.id, validAnswer(q, i)]));
      const responses = await Promise.all(
        concurrentFields.map((q, i) =>
          tabs[i % tabs.length]!.put(
            stepPath(formId, CONCURRENT_STEP),
            saveBody({ [q.id]: values.get(q.id) }, { mergeStrategy: strategy, revisionCount: base.revisionCount, lastUpdated: base.lastUpdated }),
          ),
        ),
      );
      for (const [i, response] of responses.entries()) {
        expect(response.status, `save of ${concurrentFields[i]!.id}: ${JSON.stringify(response.body)}`).toBe(200);
        expect(response.body.conflicts).toBeUndefined();
        expect(response.body.stepData.data[concurrentFields[i]!.id]).toEqual(values.get(concurrentFields[i]!.id));
      }
      // Each changing save made exactly one revision of its own.
      const revisions = responses.map((response) => response.body.revisionCount as number).sort((a, b) => a - b);
      expect(revisions).toEqual(Array.from({ length: 20 }, (_, i) => base.revisionCount + 1 + i));

      const read = await readStep(tabs[0]!, formId, CONCURRENT_STEP);
      expect(read.revisionCount).toBe(base.revisionCount + 20);
      for (const [id, value] of values) expect(read.stepData.data[id], id).toEqual(value);
      const row = (await stepRow(server, formId, stepKey))!;
      expect(row.revisionCount).toBe(base.revisionCount + 20);
      for (const [id, value] of values) expect(row.data[id], id).toEqual(value);
      expect(Object.keys(row.data).sort()).toEqual([...values.keys()].sort());
      expect(Object.values(row.fieldRevisions).sort((a, b) => a - b)).toEqual(revisions);

      // Second round: 4 unchanged resends and 4 changes at once; only the changes make revisions.
      const secondValue = (q: (typeof concurrentFields)[number]) => (q.type === 'select' ? validAnswer(q, concurrentFields.indexOf(q) + 1) : `${q.id} second`);
      const unchanged = concurrentFields.slice(0, 4);
      const changed = concurrentFields.slice(4, 8);
      const round2 = await Promise.all([
        ...unchanged.map((q, i) =>
          tabs[i % tabs.length]!.put(
            stepPath(formId, CONCURRENT_STEP),
            saveBody({ [q.id]: values.get(q.id) }, { mergeStrategy: strategy, revisionCount: read.revisionCount }),
          ),
        ),
        ...changed.map((q, i) =>
          tabs[i % tabs.length]!.put(
            stepPath(formId, CONCURRENT_STEP),
            saveBody({ [q.id]: secondValue(q) }, { mergeStrategy: strategy, revisionCount: read.revisionCount }),
          ),
        ),
      ]);
      for (const response of round2) expect(response.status, JSON.stringify(response.body)).toBe(200);
      const after = (await stepRow(server, formId, stepKey))!;
      expect(after.revisionCount).toBe(read.revisionCount + changed.length);
      for (const q of unchanged) expect(after.data[q.id]).toEqual(values.get(q.id));
      for (const q of changed) expect(after.data[q.id]).toEqual(secondValue(q));
      for (const q of concurrentFields.slice(8)) expect(after.data[q.id]).toEqual(values.get(q.id));
      const reread = await readStep(tabs[1]!, formId, CONCURRENT_STEP);
      expect(reread.revisionCount).toBe(after.revisionCount);
      expect(reread.stepData.data).toEqual(after.data);
    });
  }
});

/** Step 6 fields for the stale-client scenarios. */
const STEP = 6;
const STEP_KEY = stepAt(STEP).key;
const X = 'att_coordinatorName';
const Y = 'att_barriers';
const W = 'att_strategy';

type Base = 'revisionCount' | 'lastUpdated';

/**
 * A fresh plan where W was saved first; tab A then loads the step (its base), tab B (same user)
 * saves X, and A is left stale. `seedY` also answers Y before A loads.
 */
async function staleScenario(seedY = false) {
  const formId = await createPlan(admin, 'Stale', PRINCIPAL_HARBOR);
  const [a, b] = [tabs[0]!, tabs[1]!];
  const seeded = await a.put(stepPath(formId, STEP), saveBody({ [W]: 'seeded W', ...(seedY ? { [Y]: 'seeded Y' } : {}) }));
  expect(seeded.status).toBe(200);
  const loadedByA = await readStep(a, formId, STEP);
  expect(loadedByA.revisionCount).toBe(1);
  expect(loadedByA.lastUpdated).not.toBeNull();
  // B's write must carry a later timestamp than A's base.
  await pause(5);
  const loadedByB = await readStep(b, formId, STEP);
  const saveB = await b.put(
    stepPath(formId, STEP),
    saveBody({ [X]: 'from B' }, { revisionCount: loadedByB.revisionCount, lastUpdated: loadedByB.lastUpdated }),
  );
  expect(saveB.status).toBe(200);
  expect(saveB.body.revisionCount).toBe(2);
  return { formId, a, b, loadedByA, afterB: await readStep(b, formId, STEP) };
}

/** The client's base, sent as `revisionCount` (with lastUpdated) or as `lastUpdated` only (the spec's body). */
function baseOf(kind: Base, loaded: { revisionCount: number; lastUpdated: string | null }) {
  return kind === 'revisionCount' ? { revisionCount: loaded.revisionCount } : { lastUpdated: loaded.lastUpdated };
}

describe.each(['revisionCount', 'lastUpdated'] as const)('merge strategies with a stale client (base as %s)', (baseKind: Base) => {
  it('reject: 409 with the server state, nothing written; equal values are not conflicts', async () => {
    const { formId, a, loadedByA, afterB } = await staleScenario();
    const before = (await stepRow(server, formId, STEP_KEY))!;
    const response = await a.put(
      stepPath(formId, STEP),
      saveBody({ [X]: 'from A', [Y]: 'A other' }, { mergeStrategy: 'reject', ...baseOf(baseKind, loadedByA) }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(409);
    expect(typeof response.body.error).toBe('string');
    expect(response.body.conflict).toBe(true);
    expect(response.body.serverData).toEqual({ [W]: 'seeded W', [X]: 'from B' });
    expect(response.body.serverRevision).toBe(2);
    expect(response.body.serverLastUpdated).toBe(afterB.lastUpdated);
    // Nothing written: not the conflicting field, not the other one.
    const read = await readStep(a, formId, STEP);
    expect(read.stepData.data).toEqual({ [W]: 'seeded W', [X]: 'from B' });
    expect(read.revisionCount).toBe(2);
    expect(read.lastUpdated).toBe(afterB.lastUpdated);
    expect(await stepRow(server, formId, STEP_KEY)).toEqual(before);

    // The same stale client sending B's value for X (and its own Y) conflicts with nothing.
    const equal = await a.put(stepPath(formId, STEP), saveBody({ [X]: 'from B', [Y]: 'A other' }, { mergeStrategy: 'reject', ...baseOf(baseKind, loadedByA) }));
    expect(equal.status, JSON.stringify(equal.body)).toBe(200);
    expect(equal.body.conflicts).toBeUndefined();
    expect(equal.body.revisionCount).toBe(3);
    const row = (await stepRow(server, formId, STEP_KEY))!;
    expect(row.data).toEqual({ [W]: 'seeded W', [X]: 'from B', [Y]: 'A other' });
    expect(row.fieldRevisions[X]).toBe(2);
    expect(row.fieldRevisions[Y]).toBe(3);
  });

  it('merge: 200 listing the conflict, the server value kept, the other fields written', async () => {
    const { formId, a, loadedByA } = await staleScenario();
    const response = await a.put(
      stepPath(formId, STEP),
      saveBody({ [X]: 'from A', [Y]: 'A other' }, { mergeStrategy: 'merge', ...baseOf(baseKind, loadedByA) }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.conflicts).toEqual([X]);
    expect(response.body.stepData.data).toEqual({ [W]: 'seeded W', [X]: 'from B', [Y]: 'A other' });
    expect(response.body.revisionCount).toBe(3);
    const read = await readStep(tabs[2]!, formId, STEP);
    expect(read.stepData.data).toEqual({ [W]: 'seeded W', [X]: 'from B', [Y]: 'A other' });
    expect(read.revisionCount).toBe(3);
    const row = (await stepRow(server, formId, STEP_KEY))!;
    expect(row.data).toEqual(read.stepData.data);
    expect(row.revisionCount).toBe(3);

    // An equal value is never a conflict under merge either (and changes nothing).
    const equal = await a.put(stepPath(formId, STEP), saveBody({ [X]: 'from B' }, { mergeStrategy: 'merge', ...baseOf(baseKind, loadedByA) }));
    expect(equal.status).toBe(200);
    expect(equal.body.conflicts).toBeUndefined();
    expect((await stepRow(server, formId, STEP_KEY))!.revisionCount).toBe(3);
  });

  it('last-write-wins: the stale value is written', async () => {
    const { formId, a, loadedByA } = await staleScenario();
    const response = await a.put(
      stepPath(formId, STEP),
      saveBody({ [X]: 'from A', [Y]: 'A other' }, { mergeStrategy: 'last-write-wins', ...baseOf(baseKind, loadedByA) }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.conflicts).toBeUndefined();
    const read = await readStep(tabs[2]!, formId, STEP);
    expect(read.stepData.data).toEqual({ [W]: 'seeded W', [X]: 'from A', [Y]: 'A other' });
    expect(read.revisionCount).toBe(3);
    expect((await stepRow(server, formId, STEP_KEY))!.data).toEqual(read.stepData.data);
  });

  it('merge: a field last changed BEFORE the client loaded is not a conflict', async () => {
    // Y was answered before A loaded; only X moved under A. Under `merge` only answers changed after
    // the client's base are conflicts (docs/decisions.md, merge strategies).
    const { formId, a, loadedByA } = await staleScenario(true);
    const response = await a.put(
      stepPath(formId, STEP),
      saveBody({ [X]: 'from A', [Y]: 'A edited Y' }, { mergeStrategy: 'merge', ...baseOf(baseKind, loadedByA) }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.conflicts).toEqual([X]);
    const row = (await stepRow(server, formId, STEP_KEY))!;
    expect(row.data).toEqual({ [W]: 'seeded W', [X]: 'from B', [Y]: 'A edited Y' });
  });

  it('reject: a stale client editing only fields nobody changed since its load is not refused', async () => {
    const { formId, a, loadedByA } = await staleScenario(true);
    const response = await a.put(
      stepPath(formId, STEP),
      saveBody({ [Y]: 'A edited Y', [W]: 'A edited W' }, { mergeStrategy: 'reject', ...baseOf(baseKind, loadedByA) }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const row = (await stepRow(server, formId, STEP_KEY))!;
    expect(row.data).toEqual({ [W]: 'A edited W', [X]: 'from B', [Y]: 'A edited Y' });
    expect(row.revisionCount).toBe(3);
  });
});

describe('merge strategy default', () => {
  it('a body without mergeStrategy is last-write-wins', async () => {
    const { formId, a, loadedByA } = await staleScenario();
    const response = await a.put(stepPath(formId, STEP), { stepData: { data: { [X]: 'from A' } }, lastUpdated: loadedByA.lastUpdated });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.conflicts).toBeUndefined();
    expect((await stepRow(server, formId, STEP_KEY))!.data[X]).toBe('from A');
  });
});

describe('dirty-only writes', () => {
  it('writes only the fields that differ, never touches fields not sent, and an unchanged resend is no revision', async () => {
    const formId = await createPlan(admin, 'Dirty', PRINCIPAL_HARBOR);
    const [tab1, tab2] = [tabs[0]!, tabs[1]!];
    const Z = 'att_dataReview';

    const first = await tab1.put(stepPath(formId, STEP), saveBody({ [X]: 'x1', [Y]: 'y1', att_hasCommittee: false, att_outreachMethod: 'email' }));
    expect(first.status).toBe(200);
    expect(first.body.revisionCount).toBe(1);
    const afterFirst = (await stepRow(server, formId, STEP_KEY))!;

    // The same data again: 200, no new revision, no new timestamp, no new field revisions.
    await pause(5);
    const again = await tab1.put(stepPath(formId, STEP), saveBody({ [X]: 'x1', [Y]: 'y1', att_hasCommittee: false, att_outreachMethod: 'email' }));
    expect(again.status).toBe(200);
    expect(again.body.revisionCount).toBe(1);
    expect(again.body.lastUpdated).toBe(afterFirst.lastUpdated!.toISOString());
    expect(await stepRow(server, formId, STEP_KEY)).toEqual(afterFirst);

    // Another tab answers Z; tab 1 resends its unchanged X and Y from a stale base (last-write-wins).
    expect((await tab2.put(stepPath(formId, STEP), saveBody({ [Z]: 'z from tab 2' }))).status).toBe(200);
    const resend = await tab1.put(stepPath(formId, STEP), saveBody({ [X]: 'x1', [Y]: 'y1' }, { mergeStrategy: 'last-write-wins', revisionCount: 1 }));
    expect(resend.status).toBe(200);
    expect(resend.body.revisionCount).toBe(2);
    expect(resend.body.stepData.data[Z]).toBe('z from tab 2');

    // One changed field among resent ones: only it gets the new revision; Z (not sent) is kept.
    const oneChanged = await tab1.put(stepPath(formId, STEP), saveBody({ [X]: 'x1', [Y]: 'y2' }, { mergeStrategy: 'last-write-wins', revisionCount: 1 }));
    expect(oneChanged.status).toBe(200);
    expect(oneChanged.body.revisionCount).toBe(3);
    let row = (await stepRow(server, formId, STEP_KEY))!;
    expect(row.data).toEqual({ [X]: 'x1', [Y]: 'y2', [Z]: 'z from tab 2', att_hasCommittee: false, att_outreachMethod: 'email' });
    expect(row.fieldRevisions).toEqual({ [X]: 1, [Y]: 3, [Z]: 2, att_hasCommittee: 1, att_outreachMethod: 1 });

    // Tab 2 changes X; tab 1 (stale) sends X again: under last-write-wins a sent field that differs
    // is written, while every field tab 1 did not send stays as it is.
    expect((await tab2.put(stepPath(formId, STEP), saveBody({ [X]: 'x from tab 2' }))).status).toBe(200);
    const stale = await tab1.put(stepPath(formId, STEP), saveBody({ [X]: 'x1' }, { mergeStrategy: 'last-write-wins', revisionCount: 3 }));
    expect(stale.status).toBe(200);
    row = (await stepRow(server, formId, STEP_KEY))!;
    expect(row.data).toEqual({ [X]: 'x1', [Y]: 'y2', [Z]: 'z from tab 2', att_hasCommittee: false, att_outreachMethod: 'email' });
    expect(row.revisionCount).toBe(5);

    // null clears an answer; clearing again, or clearing a never-answered question, changes nothing.
    const cleared = await tab1.put(stepPath(formId, STEP), saveBody({ [Y]: null }));
    expect(cleared.status).toBe(200);
    expect(cleared.body.revisionCount).toBe(6);
    const clearedAgain = await tab1.put(stepPath(formId, STEP), saveBody({ [Y]: null, att_lateness: null }));
    expect(clearedAgain.status).toBe(200);
    expect(clearedAgain.body.revisionCount).toBe(6);
    const read = await readStep(tab2, formId, STEP);
    expect(read.revisionCount).toBe(6);
    expect(read.stepData.data[Y] ?? null).toBeNull();
    expect(read.stepData.data[X]).toBe('x1');
    expect(read.stepData.data[Z]).toBe('z from tab 2');
    expect(read.stepData.data.att_lateness ?? null).toBeNull();

    // An empty save writes nothing.
    const empty = await tab1.put(stepPath(formId, STEP), saveBody({}));
    expect(empty.status).toBe(200);
    expect((await stepRow(server, formId, STEP_KEY))!.revisionCount).toBe(6);
  });
});

describe('dirty-only writes of table answers', () => {
  const TABLE = 'att_partnerPrograms';
  const table = () => validAnswer(question(STEP, TABLE), 3);
  let formId: string;
  beforeAll(async () => {
    formId = await createPlan(admin, 'Tables', PRINCIPAL_HARBOR);
  });

  it('resending an unchanged table answer is no revision', async () => {
    const first = await tabs[0]!.put(stepPath(formId, STEP), saveBody({ [TABLE]: table() }));
    expect(first.status).toBe(200);
    expect(first.body.revisionCount).toBe(1);
    const afterFirst = (await stepRow(server, formId, STEP_KEY))!;
    expect(afterFirst.data[TABLE]).toEqual(table());
    // The very same table (as the client holds it: headers, then rows) sent again by the autosave.
    const again = await tabs[0]!.put(stepPath(formId, STEP), saveBody({ [TABLE]: table() }));
    expect(again.status).toBe(200);
    expect(again.body.revisionCount).toBe(1);
    expect(await stepRow(server, formId, STEP_KEY)).toEqual(afterFirst);
  });

  it('an equal table answer from a stale client is not a conflict (reject)', async () => {
    // Step 5 of the same plan: its crisis-team table.
    const crisisTeam = validAnswer(question(5, 'sp_crisisTeam'), 4);
    const [a, b] = [tabs[0]!, tabs[1]!];
    const loadedByA = await readStep(a, formId, 5);
    expect((await b.put(stepPath(formId, 5), saveBody({ sp_crisisTeam: crisisTeam }))).status).toBe(200);
    const before = (await stepRow(server, formId, 'suicidePrevention'))!;
    const response = await a.put(
      stepPath(formId, 5),
      saveBody({ sp_crisisTeam: structuredClone(crisisTeam) }, { mergeStrategy: 'reject', revisionCount: loadedByA.revisionCount }),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.conflicts).toBeUndefined();
    expect(await stepRow(server, formId, 'suicidePrevention')).toEqual(before);
  });
});

describe('completion', () => {
  let formId: string;
  const listed = async () => {
    const { status, body } = await admin.get(`/api/forms?schoolYear=${YEAR}`);
    expect(status).toBe(200);
    const form = (body.forms as { _id: string; completedSteps: string[] }[]).find((f) => f._id === formId);
    expect(form).toBeDefined();
    expect(form).not.toHaveProperty('formData');
    return form!.completedSteps;
  };
  const completedOf = async (stepNumber: number) => {
    const read = await readStep(tabs[0]!, formId, stepNumber);
    const row = (await stepRow(server, formId, stepAt(stepNumber).key))!;
    expect(row.completed).toBe(read.stepData.completed);
    return read.stepData.completed;
  };
  const save = async (stepNumber: number, data: Record<string, Answer>, completed?: boolean) => {
    const response = await tabs[0]!.put(stepPath(formId, stepNumber), saveBody(data, completed === undefined ? {} : { completed }));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.stepData.completed as boolean;
  };

  beforeAll(async () => {
    formId = await createPlan(admin, 'Completion', PRINCIPAL_HARBOR);
  });

  it('a new plan has no completed step', async () => {
    expect(await listed()).toEqual([]);
  });

  it('follows the answers: the one required checkbox of step 1', async () => {
    expect(await save(1, { toc_principalReviewed: true })).toBe(true);
    expect(await completedOf(1)).toBe(true);
    expect(await listed()).toEqual(['tableOfContents']);
    // An unchecked checkbox is not an answer.
    expect(await save(1, { toc_principalReviewed: false })).toBe(false);
    expect(await completedOf(1)).toBe(false);
    expect(await listed()).toEqual([]);
    expect(await save(1, { toc_principalReviewed: true })).toBe(true);
  });

  it('a gate answered no hides the rest of the step (step 7, temporary housing)', async () => {
    const step = stepAt(7);
    const gateIndex = step.questions.findIndex((q) => q.gatesFollowing);
    expect(step.questions[gateIndex]!.id).toBe('sth_hasStudents');
    const beforeGate = Object.fromEntries(
      step.questions
        .slice(0, gateIndex)
        .filter((q) => q.required)
        .map((q) => [q.id, validAnswer(q, 1)]),
    );
    // Answers before the gate, gate unanswered: the gate itself is required.
    expect(await save(7, beforeGate)).toBe(false);
    expect(await save(7, { sth_hasStudents: false })).toBe(true);
    expect(await completedOf(7)).toBe(true);
    expect(await listed()).toEqual(['tableOfContents', 'temporaryHousing']);
    // Opening the gate shows required questions that are not answered yet.
    expect(await save(7, { sth_hasStudents: true })).toBe(false);
    expect(await listed()).toEqual(['tableOfContents']);
    const afterGate = Object.fromEntries(
      step.questions
        .slice(gateIndex + 1)
        .filter((q) => q.required)
        .map((q) => [q.id, validAnswer(q, 2)]),
    );
    expect(Object.keys(afterGate).length).toBeGreaterThan(0);
    expect(await save(7, afterGate)).toBe(true);
    expect(await completedOf(7)).toBe(true);
  });

  it('a table of blank cells is not an answer (step 12, gate first)', async () => {
    expect(await save(12, { asp_offersPrograms: false })).toBe(true);
    const headers = question(12, 'asp_programs').columns!.map((c) => c.header);
    expect(await save(12, { asp_offersPrograms: true, asp_programs: { headers, rows: [headers.map(() => '  ')] } })).toBe(false);
    expect(await completedOf(12)).toBe(false);
    expect(await save(12, { asp_programs: { headers, rows: [headers.map((h, i) => (i === 0 ? 'Robotics' : ''))] } })).toBe(true);
    expect(await listed()).toEqual(['tableOfContents', 'temporaryHousing', 'afterSchoolPrograms']);
  });

  it('the client may mark a step completed', async () => {
    // One answer of many required ones, marked completed by the client.
    expect(await save(3, { sh_trainingDate: '2025-09-01' }, true)).toBe(true);
    expect(await completedOf(3)).toBe(true);
    // Marking alone (no answer changed) is a write too.
    expect(await save(4, {}, true)).toBe(true);
    expect(await completedOf(4)).toBe(true);
    expect(await listed()).toEqual(['tableOfContents', 'sexualHarassment', 'respectForAll', 'temporaryHousing', 'afterSchoolPrograms']);
  });

  it('principalLetter never counts as a completed step', async () => {
    await server.services.storage.db
      .insert(planSteps)
      .values({ formId, stepKey: 'principalLetter', completed: true, data: { letter: 'Dear families' }, revisionCount: 1 })
      .onConflictDoUpdate({ target: [planSteps.formId, planSteps.stepKey], set: { completed: true } });
    const completed = await listed();
    expect(completed).not.toContain('principalLetter');
    expect(completed).toEqual(['tableOfContents', 'sexualHarassment', 'respectForAll', 'temporaryHousing', 'afterSchoolPrograms']);
    const full = await tabs[0]!.get(planPath(formId));
    expect(full.status).toBe(200);
    expect(full.body.completedSteps).toEqual(completed);
    await server.services.storage.db.delete(planSteps).where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, 'principalLetter')));
  });
});

/**
 * An editor's autosave may start from what the server process remembers of its last save
 * (`RecentPlanSteps`). Between two saves of one editor, other people change the step or the
 * editor's access; the second save must see those changes as if it had read everything afresh.
 */
describe("a save after others changed the step or the access since the editor's last save", () => {
  const AP_HARBOR = 'ap.harbor@example.org';

  it("another user's save in between is kept: merged, and a stale reject gets the current answers", async () => {
    const formId = await createPlan(admin, 'Between', PRINCIPAL_HARBOR);
    const principal = tabs[0]!;
    // Each lets go of the step lock after saving, so the other may save.
    const unlock = async (client: HttpClient) => expect((await client.post(stepPath(formId, STEP, '/unlock'), {})).status).toBe(200);
    const first = await principal.put(stepPath(formId, STEP), saveBody({ [X]: 'principal 1' }));
    expect(first.status).toBe(200);
    await unlock(principal);
    const byAdmin = await admin.put(stepPath(formId, STEP), saveBody({ [Y]: 'admin', [W]: 'admin W' }));
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.revisionCount).toBe(2);
    await unlock(admin);

    const second = await principal.put(stepPath(formId, STEP), saveBody({ [X]: 'principal 2' }, { revisionCount: 1, mergeStrategy: 'merge' }));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.revisionCount).toBe(3);
    expect(second.body.stepData.data).toMatchObject({ [X]: 'principal 2', [Y]: 'admin', [W]: 'admin W' });
    expect((await stepRow(server, formId, STEP_KEY))!.data).toMatchObject({ [X]: 'principal 2', [Y]: 'admin', [W]: 'admin W' });

    await unlock(principal);
    expect((await admin.put(stepPath(formId, STEP), saveBody({ [W]: 'admin W 2' }))).status).toBe(200);
    await unlock(admin);
    const before = (await stepRow(server, formId, STEP_KEY))!;
    const stale = await principal.put(stepPath(formId, STEP), saveBody({ [W]: 'principal W' }, { revisionCount: 3, mergeStrategy: 'reject' }));
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ conflicts: [W], serverRevision: 4, serverData: { [W]: 'admin W 2', [X]: 'principal 2' } });
    expect(await stepRow(server, formId, STEP_KEY)).toEqual(before);
  });

  it('a share withdrawn or narrowed to other steps refuses the next save and writes nothing', async () => {
    const formId = await createPlan(admin, 'Unshared', PRINCIPAL_HARBOR);
    const apId = (await userByEmail(server, AP_HARBOR)).id;
    const ap = await signIn(server.url, AP_HARBOR);
    const saveByAp = (value: string) => ap.put(stepPath(formId, STEP), saveBody({ [X]: value }));

    await shareWith(admin, formId, [apId], 'edit');
    expect((await saveByAp('shared')).status).toBe(200);
    expect((await admin.delete('/api/admin/forms/share', { formId, userIds: [apId] })).status).toBe(200);
    const before = (await stepRow(server, formId, STEP_KEY))!;
    expect((await saveByAp('after unshare')).status).toBe(403);
    expect(await stepRow(server, formId, STEP_KEY)).toEqual(before);

    await shareWith(admin, formId, [apId], 'edit', [STEP_KEY]);
    expect((await saveByAp('step shared')).status).toBe(200);
    await shareWith(admin, formId, [apId], 'edit', [stepAt(STEP + 1).key]);
    const narrowed = (await stepRow(server, formId, STEP_KEY))!;
    expect((await saveByAp('after narrowing')).status).toBe(403);
    expect(await stepRow(server, formId, STEP_KEY)).toEqual(narrowed);
  });

  it('a plan of an archived year whose live override is withdrawn refuses the next save', async () => {
    const formId = await lastYearsDraft();
    const principal = tabs[2]!;
    expect((await admin.post('/api/admin/forms/live', { formId, live: true })).status).toBe(200);
    try {
      expect((await principal.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: 'while live' }))).status).toBe(200);
      expect((await principal.post(stepPath(formId, 2, '/unlock'), {})).status).toBe(200);
    } finally {
      expect((await admin.post('/api/admin/forms/live', { formId, live: false })).status).toBe(200);
    }
    const stepKey = stepAt(2).key;
    const before = (await stepRow(server, formId, stepKey))!;
    expect((await principal.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: 'after the override' }))).status).toBe(403);
    expect(await stepRow(server, formId, stepKey)).toEqual(before);
    // Refused, the save holds no lock.
    expect((await principal.get(planPath(formId, '/locks'))).body.locks).toEqual([]);
  });

  it('a plan deleted after a save answers the next save with 404, holding no lock', async () => {
    const formId = await createPlan(admin, 'Deleted', PRINCIPAL_HARBOR);
    const principal = tabs[1]!;
    expect((await principal.put(stepPath(formId, STEP), saveBody({ [X]: 'before deletion' }))).status).toBe(200);
    expect((await principal.post(stepPath(formId, STEP, '/unlock'), {})).status).toBe(200);
    expect((await admin.delete(planPath(formId))).status).toBe(200);
    expect((await principal.put(stepPath(formId, STEP), saveBody({ [X]: 'after deletion' }))).status).toBe(404);
    expect(await server.services.kv.get(stepLockKey(formId, STEP_KEY))).toBeNull();
  });

  it('a year archived again after a save refuses the next save to its plans', async () => {
    const schoolYear = previousSchoolYear(YEAR);
    const formId = await lastYearsDraft();
    const principal = tabs[2]!;
    const archive = async (archived: boolean) => expect((await admin.put('/api/school-year', { schoolYear, archived })).status).toBe(200);
    await archive(false);
    try {
      expect((await principal.put(stepPath(formId, 3), saveBody({ sh_trainingDate: 'while open' }))).status).toBe(200);
      expect((await principal.post(stepPath(formId, 3, '/unlock'), {})).status).toBe(200);
    } finally {
      await archive(true);
    }
    const stepKey = stepAt(3).key;
    const before = (await stepRow(server, formId, stepKey))!;
    expect((await principal.put(stepPath(formId, 3), saveBody({ sh_trainingDate: 'after archiving' }))).status).toBe(403);
    expect(await stepRow(server, formId, stepKey)).toEqual(before);
    expect((await principal.get(planPath(formId, '/locks'))).body.locks).toEqual([]);
  });
});

/** Last year's demo plan, made a draft again: its approval would refuse the saves on its own (the lifecycle), and these tests are about the year. */
async function lastYearsDraft(): Promise<string> {
  const formId = await formIdOf(admin, HARBOR, previousSchoolYear(YEAR));
  await server.services.storage.db.update(plans).set({ status: 'draft' }).where(eq(plans.id, formId));
  return formId;
}

describe('archived year', () => {
  it('refuses step saves to a plan of an archived year and writes nothing', async () => {
    const formId = await lastYearsDraft();
    const before = await readStep(tabs[0]!, formId, 2);
    const rowBefore = await stepRow(server, formId, before.stepKey);
    const response = await tabs[0]!.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: 'changed in an archived year' }));
    expect(response.status).toBe(403);
    expect(typeof response.body.error).toBe('string');
    expect(await stepRow(server, formId, before.stepKey)).toEqual(rowBefore);
    const locks = await tabs[0]!.get(planPath(formId, '/locks'));
    expect(locks.status).toBe(200);
    expect(locks.body.locks).toEqual([]);
  });
});

describe('save rate limit', () => {
  it('answers the 31st save in a minute by one user on one plan with 429 and Retry-After, writing nothing', async () => {
    const formId = await createPlan(admin, 'Rate limit', PRINCIPAL_HARBOR);
    const tab = tabs[2]!;
    for (let i = 1; i <= 30; i++) {
      const response = await tab.put(stepPath(formId, STEP), saveBody({ [X]: `value ${i}` }));
      expect(response.status, `save ${i}: ${JSON.stringify(response.body)}`).toBe(200);
    }
    const before = (await stepRow(server, formId, STEP_KEY))!;
    expect(before.revisionCount).toBe(30);
    const limited = await tab.put(stepPath(formId, STEP), saveBody({ [X]: 'value 31', [Y]: 'never written' }));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await stepRow(server, formId, STEP_KEY)).toEqual(before);
    // Another tab of the same user shares the count; another plan does not.
    expect((await tabs[0]!.put(stepPath(formId, STEP), saveBody({ [X]: 'other tab' }))).status).toBe(429);
    const otherPlan = await formIdOf(tab, HARBOR);
    expect((await tab.put(stepPath(otherPlan, STEP), saveBody({ [X]: 'fine' }))).status).toBe(200);
    // Reading is not limited.
    expect((await readStep(tab, formId, STEP)).stepData.data[X]).toBe('value 30');
  });
});
