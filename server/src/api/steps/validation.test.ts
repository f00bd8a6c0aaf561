/**
 * Input validation of the plan routes: malformed bodies, answers of the wrong type, unknown
 * question ids and fields, bad and unknown ids, bad step numbers. Each is a 4xx `{ error }` and
 * changes nothing: the database (plans, steps, comments, shares, audit log), the locks and the
 * presence list are compared before and after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc } from 'drizzle-orm';
import { TABLE_MAX_COLUMNS, TABLE_MAX_ROWS, TEXT_ANSWER_MAX_LENGTH } from '@csp/shared';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { auditLogs, comments, notifications, planShares, planSteps, plans, schoolYearSettings } from '../../storage/schema.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../../testing/demoNames.ts';
import { formIdOf, planPath, readStep, saveBody, stepPath, stepRow, UNKNOWN_ID, YEAR } from '../../testing/plans.ts';
import { question } from '../../testing/bundledBank.ts';

let server: TestServer;
let principal: HttpClient;
let admin: HttpClient;
let formId: string;

const STEP = 6;
const STEP_KEY = 'attendancePlan';

beforeAll(async () => {
  server = await startTestServer();
  [principal, admin] = await Promise.all([signIn(server.url, PRINCIPAL_HARBOR), signIn(server.url, SUPERADMIN)]);
  formId = await formIdOf(principal, HARBOR);
  // A baseline: one answered field, the principal holding the step lock, and a presence entry.
  const baseline = await principal.put(stepPath(formId, STEP), saveBody({ att_coordinatorName: 'baseline', att_hasCommittee: false }));
  expect(baseline.status).toBe(200);
  expect((await principal.post(planPath(formId, '/editors/register'), { stepKey: STEP_KEY })).status).toBe(200);
});
afterAll(() => server?.stop());

/** Everything a plan-route request could change. */
async function snapshot() {
  // Earlier saves' history (and its audit records) is written after them: wait for it first.
  await server.history.drain();
  const db = server.services.storage.db;
  const [planRows, stepRows, commentRows, shareRows, audit, notificationRows, years, locks, editors] = await Promise.all([
    db.select().from(plans).orderBy(asc(plans.id)),
    db.select().from(planSteps).orderBy(asc(planSteps.formId), asc(planSteps.stepKey)),
    db.select().from(comments).orderBy(asc(comments.id)),
    db.select().from(planShares),
    db.select().from(auditLogs),
    db.select().from(notifications),
    db.select().from(schoolYearSettings).orderBy(asc(schoolYearSettings.schoolYear)),
    admin.get(planPath(formId, '/locks')),
    admin.get(planPath(formId, '/editors')),
  ]);
  return {
    planRows,
    stepRows,
    commentRows,
    shareRows,
    audit: audit.length,
    notificationRows,
    years,
    locks: (locks.body.locks as { stepKey: string; lockedBy: unknown; lockedAt: string }[]).map(({ stepKey, lockedBy, lockedAt }) => ({
      stepKey,
      lockedBy,
      lockedAt,
    })),
    editors: (editors.body.editors as { email: string; stepKey: string | null }[]).map(({ email, stepKey }) => ({ email, stepKey })),
  };
}

type Response = { status: number; body: any; headers: Headers };

function expectClientError(response: Response, label: string, status?: number) {
  if (status !== undefined) expect(response.status, `${label}: ${JSON.stringify(response.body)}`).toBe(status);
  expect(response.status, `${label}: ${JSON.stringify(response.body)}`).toBeGreaterThanOrEqual(400);
  expect(response.status, `${label}: ${JSON.stringify(response.body)}`).toBeLessThan(500);
  expect(response.headers.get('content-type') ?? '', label).toMatch(/application\/json/);
  expect(typeof response.body?.error, `${label}: ${JSON.stringify(response.body)}`).toBe('string');
  expect(response.body.error.length, label).toBeGreaterThan(0);
}

/** Sends a raw body as JSON (for bodies JSON.stringify cannot produce). */
async function rawJson(client: HttpClient, method: string, path: string, body: string, contentType = 'application/json'): Promise<Response> {
  const response = await client.request(method, path, { body, headers: { 'content-type': contentType } });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // raw text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

const headers = question(STEP, 'att_partnerPrograms').columns!.map((c) => c.header);
const row = (value: unknown = 'cell') => headers.map(() => value);

describe('PUT step: bodies and answers', () => {
  const malformedRaw: [string, string][] = [
    ['not JSON', 'not json'],
    ['truncated JSON', '{"stepData": {"data": {}}'],
    ['JSON null', 'null'],
    ['JSON string', '"stepData"'],
    ['JSON number', '42'],
    ['JSON array', '[]'],
    ['__proto__ as question id', '{"stepData":{"data":{"__proto__":"x"}}}'],
    ['__proto__ in stepData', '{"stepData":{"data":{},"__proto__":{"completed":true}}}'],
  ];

  const badBodies: [string, unknown][] = [
    ['empty object', {}],
    ['data without stepData', { data: { att_coordinatorName: 'x' } }],
    ['stepData null', { stepData: null }],
    ['stepData an array', { stepData: [] }],
    ['stepData without data', { stepData: { completed: true } }],
    ['data an array', { stepData: { data: ['att_coordinatorName'] } }],
    ['data a string', { stepData: { data: 'att_coordinatorName' } }],
    ['data null', { stepData: { data: null } }],
    ['completed a string', { stepData: { completed: 'yes', data: {} } }],
    ['unknown field in stepData', { stepData: { data: {}, owner: 'me' } }],
    ['unknown top-level field', { stepData: { data: {} }, force: true }],
    ['negative revisionCount', saveBody({}, { revisionCount: -1 })],
    ['fractional revisionCount', saveBody({}, { revisionCount: 1.5 })],
    ['string revisionCount', { ...saveBody({}), revisionCount: '3' }],
    ['lastUpdated not a date', saveBody({}, { lastUpdated: 'yesterday' })],
    ['lastUpdated a number', { ...saveBody({}), lastUpdated: 1_700_000_000_000 }],
    ['lastUpdated a date only', saveBody({}, { lastUpdated: '2025-01-01' })],
    ['unknown mergeStrategy', saveBody({}, { mergeStrategy: 'first-write-wins' })],
    ['mergeStrategy a number', { ...saveBody({}), mergeStrategy: 5 }],
  ];

  const badAnswers: [string, Record<string, unknown>][] = [
    ['number for a text question', { att_coordinatorName: 42 }],
    ['array for a text question', { att_coordinatorName: ['a'] }],
    ['object for a textarea question', { att_barriers: { text: 'a' } }],
    ['boolean for a textarea question', { att_barriers: true }],
    ['text over the length limit', { att_barriers: 'x'.repeat(TEXT_ANSWER_MAX_LENGTH + 1) }],
    ['string for a yes/no question', { att_hasCommittee: 'yes' }],
    ['number for a yes/no question', { att_hasCommittee: 1 }],
    ['unknown select value', { att_outreachMethod: 'carrier-pigeon' }],
    ['select value of another question', { att_outreachMethod: 'weekly' }],
    ['boolean for a select question', { att_outreachMethod: true }],
    ['string for a table question', { att_partnerPrograms: 'a table' }],
    [`table with ${TABLE_MAX_ROWS + 1} rows`, { att_partnerPrograms: { headers, rows: Array.from({ length: TABLE_MAX_ROWS + 1 }, () => row()) } }],
    [
      `table with ${TABLE_MAX_COLUMNS + 1} columns`,
      { att_partnerPrograms: { headers: Array.from({ length: TABLE_MAX_COLUMNS + 1 }, (_, i) => `c${i}`), rows: [] } },
    ],
    ['table cell a number', { att_partnerPrograms: { headers, rows: [row(1)] } }],
    ['table row not an array', { att_partnerPrograms: { headers, rows: ['a, b, c'] } }],
    ['table without headers', { att_partnerPrograms: { rows: [row()] } }],
    ['table with an unknown field', { att_partnerPrograms: { headers, rows: [row()], caption: 'x' } }],
    ['unknown question id', { att_noSuchQuestion: 'x' }],
    ['question id of another step', { sp_meetingSchedule: 'x' }],
    ['empty question id', { '': 'x' }],
    ['constructor as question id', { constructor: 'x' }],
    ['one valid answer with one invalid', { att_coordinatorName: 'mixed in', att_hasCommittee: 'yes' }],
    ['one valid answer with an unknown id', { att_coordinatorName: 'mixed in', att_unknown: 'x' }],
  ];

  it('answers every malformed body, wrong type and unknown id with 400 { error } and changes nothing', async () => {
    const before = await snapshot();
    for (const [label, body] of malformedRaw) expectClientError(await rawJson(principal, 'PUT', stepPath(formId, STEP), body), label, 400);
    for (const [label, body] of badBodies) expectClientError(await principal.put(stepPath(formId, STEP), body), label, 400);
    for (const [label, data] of badAnswers) {
      for (const strategy of ['last-write-wins', 'merge', 'reject']) {
        expectClientError(await principal.put(stepPath(formId, STEP), saveBody(data, { mergeStrategy: strategy })), `${label} (${strategy})`, 400);
      }
    }
    expect(await snapshot()).toEqual(before);
    const read = await readStep(principal, formId, STEP);
    expect(read.stepData.data).toEqual({ att_coordinatorName: 'baseline', att_hasCommittee: false });
  });

  it('refuses another user the same way (validation before the lock: a 400, not a 423) and takes no lock', async () => {
    const before = await snapshot();
    expectClientError(await admin.put(stepPath(formId, 7), saveBody({ sth_studentCount: 12 })), 'wrong type on a free step', 400);
    expectClientError(await admin.put(stepPath(formId, STEP), saveBody({ att_hasCommittee: 'no' })), 'wrong type on a locked step', 400);
    expect(await snapshot()).toEqual(before);
  });

  it('answers a body over 1 MB with 413 and a non-JSON body with a 4xx', async () => {
    const before = await snapshot();
    const huge = JSON.stringify(saveBody({ att_barriers: 'x'.repeat(1_100_000) }));
    expectClientError(await rawJson(principal, 'PUT', stepPath(formId, STEP), huge), 'over 1 MB', 413);
    expectClientError(await rawJson(principal, 'PUT', stepPath(formId, STEP), 'stepData=1', 'application/x-www-form-urlencoded'), 'form-encoded body');
    expectClientError(
      await rawJson(principal, 'PUT', stepPath(formId, STEP), JSON.stringify(saveBody({ att_barriers: 'x' })), 'text/plain'),
      'JSON sent as text/plain',
    );
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['NUL character', 'before\u0000after'],
    ['lone surrogate', 'broken \ud800 text'],
    ['emoji and other non-BMP characters', 'plan 📘 𝔘 ok'],
    ['control characters', 'tab\tnew line\nbell\u0007'],
  ] as const)('a text answer with a %s is stored as sent, or refused with a 4xx (never a 500)', async (label, value) => {
    const before = await stepRow(server, formId, STEP_KEY);
    const response = await principal.put(stepPath(formId, STEP), saveBody({ att_lateness: value }));
    if (response.status === 200) {
      const read = await readStep(principal, formId, STEP);
      expect(read.stepData.data.att_lateness, label).toBe(value);
      expect((await stepRow(server, formId, STEP_KEY))!.data.att_lateness).toBe(value);
    } else {
      expectClientError(response, label);
      expect(await stepRow(server, formId, STEP_KEY), label).toEqual(before);
    }
  });

  it('names the answer whose text cannot be stored', async () => {
    const response = await principal.put(stepPath(formId, STEP), saveBody({ att_lateness: 'before\u0000after' }));
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('Invalid request: stepData.data.att_lateness contains characters that cannot be stored');
  });
});

describe('NUL characters in the other plan routes', () => {
  it.each([
    ['plan creation', () => admin.post('/api/forms', { schoolName: 'Nul\u0000School', schoolYear: YEAR })],
    ['attestation', () => principal.post(planPath(formId, '/attest'), { name: 'Elena\u0000Rodriguez' })],
    ['comment', () => admin.post(planPath(formId, '/comments'), { comment: 'Please\u0000review' })],
    ['plan update', () => admin.put(planPath(formId), { action: 'update', schoolName: 'Harbor\u0000View' })],
  ] as const)('%s: a 200 or a 4xx, never a 500', async (label, send) => {
    const response = await send();
    if (response.status !== 200) expectClientError(response, label);
  });
});

describe('step numbers', () => {
  const badSteps = ['0', '15', '99', '1000', '-1', 'abc', '1.5', '1e1', '%20', 'principalLetter'];

  it('answers step numbers outside 1-14 (or not numbers) with 404 { error } on GET, PUT and unlock', async () => {
    const before = await snapshot();
    for (const step of badSteps) {
      // The path as written: stepPath would refuse a step the bank does not have.
      expectClientError(await principal.get(planPath(formId, `/step/${step}`)), `GET step ${step}`, 404);
      expectClientError(await principal.put(planPath(formId, `/step/${step}`), saveBody({ att_coordinatorName: `step ${step}` })), `PUT step ${step}`, 404);
      expectClientError(await principal.post(planPath(formId, `/step/${step}/unlock`)), `unlock step ${step}`, 404);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('steps 1 and 14 exist', async () => {
    expect((await readStep(principal, formId, 1)).stepKey).toBe('tableOfContents');
    expect((await readStep(principal, formId, 14)).stepKey).toBe('counselingPlan');
  });
});

describe('plan ids', () => {
  const badIds = ['not-an-id', 'A'.repeat(24), 'a'.repeat(23), 'a'.repeat(25), 'g'.repeat(24), encodeURIComponent("' or 1=1 --"), UNKNOWN_ID];
  const commentId = 'b'.repeat(24);

  const routes: [string, string, (id: string) => string, unknown?][] = [
    ['GET', 'plan', (id) => planPath(id)],
    ['PUT', 'plan update', (id) => planPath(id), { action: 'update', schoolName: 'Renamed' }],
    ['DELETE', 'plan delete', (id) => planPath(id)],
    ['GET', 'step', (id) => stepPath(id, 1)],
    ['PUT', 'step save', (id) => stepPath(id, 1), saveBody({ toc_principalReviewed: true })],
    ['POST', 'unlock', (id) => stepPath(id, 1, '/unlock'), {}],
    ['GET', 'locks', (id) => planPath(id, '/locks')],
    ['GET', 'editors', (id) => planPath(id, '/editors')],
    ['POST', 'editors/register', (id) => planPath(id, '/editors/register'), { stepKey: 'tableOfContents' }],
    ['POST', 'attest', (id) => planPath(id, '/attest'), { name: 'Dana Whitfield' }],
    ['POST', 'review-flag', (id) => planPath(id, '/review-flag'), { questionId: 'toc_principalReviewed' }],
    ['POST', 'email share', (id) => planPath(id, '/share'), { sharedWithEmails: ['teacher.harbor@example.org'] }],
    ['POST', 'comment', (id) => planPath(id, '/comments'), { comment: 'Please review' }],
    ['PUT', 'comment action', (id) => planPath(id, `/comments/${commentId}`), { action: 'read' }],
  ];

  it('answers malformed and unknown plan ids with 404 { error } on every plan route, changing nothing', async () => {
    const before = await snapshot();
    for (const id of badIds) {
      for (const [method, label, path, body] of routes) {
        const response = await admin.json(method, path(id), body);
        expectClientError(response, `${method} ${label} with id ${id}`, 404);
      }
    }
    // The same for the plan's owner (whose access could otherwise be decided first).
    for (const [method, label, path, body] of routes.filter(([method]) => method !== 'DELETE')) {
      expectClientError(await principal.json(method, path(UNKNOWN_ID), body), `principal: ${method} ${label}`);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('answers an unknown comment id on a real plan with 404', async () => {
    const before = await snapshot();
    expectClientError(await admin.put(planPath(formId, `/comments/${commentId}`), { action: 'read' }), 'unknown comment', 404);
    expectClientError(await admin.put(planPath(formId, '/comments/not-a-comment'), { action: 'read' }), 'malformed comment id', 404);
    expect(await snapshot()).toEqual(before);
  });

  it('answers transfer-ownership with a bad or unknown formId with a 4xx', async () => {
    const before = await snapshot();
    expectClientError(await admin.post('/api/forms/transfer-ownership', { formId: 'not-an-id', newOwnerEmail: PRINCIPAL_HARBOR }), 'malformed formId', 400);
    expectClientError(await admin.post('/api/forms/transfer-ownership', { formId: UNKNOWN_ID, newOwnerEmail: PRINCIPAL_HARBOR }), 'unknown formId', 404);
    expectClientError(await admin.post('/api/forms/transfer-ownership', { formId }), 'missing newOwnerEmail', 400);
    expect(await snapshot()).toEqual(before);
  });
});

describe('bodies of the other plan routes', () => {
  it('refuses malformed plan updates, attestations, review flags, shares and comments with 400', async () => {
    const before = await snapshot();
    const cases: [HttpClient, string, string, unknown][] = [
      [principal, 'PUT', planPath(formId), {}],
      [principal, 'PUT', planPath(formId), { action: 'bogus' }],
      [principal, 'PUT', planPath(formId), { action: 'update', schoolName: 5 }],
      [principal, 'PUT', planPath(formId), { action: 'update', schoolName: '' }],
      [principal, 'PUT', planPath(formId), { action: 'update', principalEmail: 'not-an-email' }],
      [principal, 'PUT', planPath(formId), { action: 'update', status: 'approved' }],
      [principal, 'PUT', planPath(formId), { action: 'submit', status: 'approved' }],
      [principal, 'POST', planPath(formId, '/attest'), {}],
      [principal, 'POST', planPath(formId, '/attest'), { name: '' }],
      [principal, 'POST', planPath(formId, '/attest'), { name: 5 }],
      [principal, 'POST', planPath(formId, '/attest'), { name: 'Elena Rodriguez', confirmed: true }],
      [principal, 'POST', planPath(formId, '/review-flag'), {}],
      [principal, 'POST', planPath(formId, '/review-flag'), { questionId: 5 }],
      [principal, 'POST', planPath(formId, '/review-flag'), { questionId: 'Not An Id' }],
      [admin, 'POST', planPath(formId, '/share'), { sharedWithEmails: 'teacher.harbor@example.org' }],
      [admin, 'POST', planPath(formId, '/share'), { sharedWithEmails: ['not-an-email'] }],
      [admin, 'POST', planPath(formId, '/comments'), {}],
      [admin, 'POST', planPath(formId, '/comments'), { comment: '' }],
      [admin, 'POST', planPath(formId, '/comments'), { comment: 'x', stepKey: 'not a key' }],
    ];
    for (const [client, method, path, body] of cases) {
      expectClientError(await client.json(method, path, body), `${method} ${path} ${JSON.stringify(body)}`, 400);
    }
    for (const [client, method, path] of [
      [principal, 'PUT', planPath(formId)],
      [principal, 'POST', planPath(formId, '/attest')],
      [principal, 'POST', planPath(formId, '/review-flag')],
      [principal, 'POST', planPath(formId, '/editors/register')],
      [admin, 'POST', planPath(formId, '/comments')],
      [admin, 'POST', '/api/forms'],
    ] as const) {
      expectClientError(await rawJson(client, method, path, '{"action":'), `${method} ${path} truncated JSON`, 400);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses malformed plan creations with 400 and creates nothing', async () => {
    const before = await snapshot();
    for (const body of [
      {},
      { schoolYear: YEAR },
      { schoolName: 'Validation School' },
      { schoolName: '', schoolYear: YEAR },
      { schoolName: 5, schoolYear: YEAR },
      { schoolName: 'Validation School', schoolYear: '2025' },
      { schoolName: 'Validation School', schoolYear: '2025/2026' },
      { schoolName: 'Validation School', schoolYear: YEAR, initialOwnerEmail: 'not-an-email' },
      { schoolName: 'Validation School', schoolYear: YEAR, initialOwnerEmail: 'ap.harbor@example.org' },
      { schoolName: 'Validation School', schoolYear: YEAR, status: 'approved' },
    ]) {
      expectClientError(await admin.post('/api/forms', body), `create ${JSON.stringify(body)}`, 400);
    }
    for (const query of ['schoolYear=2025', 'schoolYear=abc', 'limit=0', 'limit=201', 'page=0']) {
      expectClientError(await admin.get(`/api/forms?${query}`), `list ?${query}`, 400);
    }
    expect(await snapshot()).toEqual(before);
  });
});
