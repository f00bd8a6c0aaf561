/**
 * Answer history, restore and plan versions over HTTP and live documents against a real server:
 * revisions from both doors (step saves and live co-editing, each person named), bursts grouped,
 * the audit log at the revision grain, restores seen by a connected editor and refused while the
 * plan is with the district, versions taken at each decision and never changed afterwards.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll, sessionToken } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { openLiveClient, textOf, type LiveClient } from '../../testing/collab.ts';
import { createPlan, planPath, saveBody, shareWith, stepPath, stepRow, whoAmI, type UserRef } from '../../testing/plans.ts';
import { PRINCIPAL_HARBOR, SUPERADMIN } from '../../testing/demoNames.ts';
import { stepOf } from '../../testing/bundledBank.ts';
import { waitFor } from '../../testing/wait.ts';
import { readPdf } from '../../testing/exportChecks.ts';
import { answerRevisions, auditLogs } from '../../storage/schema.ts';
import type { AnswerRevision, HistoryResponse, PlanVersion, VersionList } from '@csp/shared/api/history';

const STEP = 'attendancePlan';
const QUESTION = 'att_coordinatorName';
const { stepNumber } = stepOf(STEP);

let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let ap: HttpClient;
let teacher: HttpClient;
const people: Record<'admin' | 'principal' | 'ap', UserRef> = {} as never;
const clients: LiveClient[] = [];

async function live(session: HttpClient, formId: string, label: string): Promise<LiveClient> {
  const client = await openLiveClient(server.url, sessionToken(session), formId, STEP, { label });
  clients.push(client);
  return client;
}

const save = (client: HttpClient, formId: string, value: string) => client.put(stepPath(formId, stepNumber), saveBody({ [QUESTION]: value }));

async function historyOf(client: HttpClient, formId: string, query = `?stepKey=${STEP}&questionId=${QUESTION}`): Promise<AnswerRevision[]> {
  const response = await client.get(planPath(formId, `/history${query}`));
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as HistoryResponse).revisions;
}

/** History is written after the write commits: wait until it shows what is expected. */
const historyWhere = (client: HttpClient, formId: string, what: string, test: (revisions: AnswerRevision[]) => boolean) =>
  waitFor(what, async () => {
    const revisions = await historyOf(client, formId);
    return test(revisions) ? revisions : undefined;
  });

/** A plan of its own, its step shared with the assistant principal for editing. */
async function freshPlan(label: string): Promise<string> {
  const formId = await createPlan(admin, label, PRINCIPAL_HARBOR);
  await shareWith(admin, formId, [people.ap.id], 'edit');
  return formId;
}

beforeAll(async () => {
  server = await startTestServer();
  [admin, principal, ap, teacher] = await signInAll(server.url, [SUPERADMIN, PRINCIPAL_HARBOR, 'ap.harbor@example.org', 'teacher.riverside@example.org']);
  people.admin = await whoAmI(admin);
  people.principal = await whoAmI(principal);
  people.ap = await whoAmI(ap);
});
afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});
afterAll(() => server?.stop());

describe('answer history', () => {
  it('one person’s quick saves on one answer are one revision, from what it was to what it became, and the audit log names it', async () => {
    const formId = await freshPlan('Burst');
    for (const value of ['Ms', 'Ms Lee', 'Ms Lee, dean']) expect((await save(principal, formId, value)).status).toBe(200);
    const [revision, ...older] = await historyWhere(principal, formId, 'the burst', ([latest]) => latest?.after === 'Ms Lee, dean');
    expect(older).toEqual([]);
    expect(revision).toMatchObject({ kind: 'edit', before: null, after: 'Ms Lee, dean', authors: [{ id: people.principal.id, name: people.principal.name }] });
    // Another person's change is a revision of its own, starting where the first one ended.
    expect((await principal.post(stepPath(formId, stepNumber, '/unlock'), {})).status).toBe(200);
    expect((await save(ap, formId, 'Ms Lee, dean of students')).status).toBe(200);
    const [apRevision] = await historyWhere(principal, formId, 'the second revision', (revisions) => revisions.length === 2);
    expect(apRevision).toMatchObject({ before: 'Ms Lee, dean', after: 'Ms Lee, dean of students', authors: [{ id: people.ap.id }] });

    const audit = await server.services.storage.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'answer.edited'), eq(auditLogs.targetId, formId)));
    expect(audit.map((entry) => [entry.actorId, entry.summary.questionId]).sort()).toEqual(
      [
        [people.principal.id, QUESTION],
        [people.ap.id, QUESTION],
      ].sort(),
    );
    // Never what the answer says.
    expect(JSON.stringify(audit)).not.toContain('Ms Lee');
    // A person's History is the audit log by actor.
    const mine = await admin.get(`/api/users/${people.ap.id}/audit`);
    expect(mine.status).toBe(200);
    expect(JSON.stringify(mine.body)).toContain(formId);
  });

  it('a burst that ends where it began leaves nothing', async () => {
    const formId = await freshPlan('Undone');
    expect((await save(principal, formId, 'A first try')).status).toBe(200);
    await historyWhere(principal, formId, 'the first save', ([latest]) => latest?.after === 'A first try');
    expect((await save(principal, formId, 'A first try, longer')).status).toBe(200);
    await historyWhere(principal, formId, 'the burst extended', ([latest]) => latest?.after === 'A first try, longer');
    // Emptied again within the burst: as blank as before it.
    expect((await save(principal, formId, '')).status).toBe(200);
    await historyWhere(principal, formId, 'the burst gone', (revisions) => revisions.length === 0);
  });

  it('a save through the route, then two people typing one answer live: the live burst is one revision naming both', async () => {
    const formId = await freshPlan('LiveBurst');
    expect((await save(admin, formId, 'Alpha')).status).toBe(200);
    expect((await admin.post(stepPath(formId, stepNumber, '/unlock'), {})).status).toBe(200);
    const a = await live(principal, formId, 'principal');
    const b = await live(ap, formId, 'ap');
    textOf(a.doc, QUESTION).insert(5, ' one');
    await waitFor('b sees a', () => textOf(b.doc, QUESTION).toString() === 'Alpha one');
    textOf(b.doc, QUESTION).insert(9, ' Bravo');
    await waitFor('a sees b', () => textOf(a.doc, QUESTION).toString() === 'Alpha one Bravo');
    await Promise.all([a.saved(), b.saved()]);
    const revisions = await historyWhere(principal, formId, 'the live revision', ([latest]) => latest?.after === 'Alpha one Bravo');
    expect(revisions).toHaveLength(2);
    const [together, saved] = revisions;
    expect(together!.authors.map((author) => author.id).sort()).toEqual([people.principal.id, people.ap.id].sort());
    expect(together!.before).toBe('Alpha');
    expect(saved).toMatchObject({ before: null, after: 'Alpha', authors: [{ id: people.admin.id }] });
  });

  it('restore brings an earlier text back through the live document, is a revision of its own, and can itself be undone', async () => {
    const formId = await freshPlan('Restore');
    expect((await save(principal, formId, 'First text')).status).toBe(200);
    const [first] = await historyWhere(principal, formId, 'the first revision', (revisions) => revisions.length === 1);
    // The assistant principal rewrites it later (another person: a revision of its own), live.
    const b = await live(ap, formId, 'ap');
    const text = textOf(b.doc, QUESTION);
    text.delete(0, text.length);
    text.insert(0, 'Second text');
    await b.saved();
    const [second] = await historyWhere(principal, formId, 'the second revision', (revisions) => revisions.length === 2);

    const restored = await principal.post(planPath(formId, `/history/${first!._id}/restore`), {});
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toMatchObject({ success: true, stepKey: STEP, restored: [QUESTION] });
    // The connected editor sees it at once; the record holds it.
    await waitFor('the editor sees the restore', () => textOf(b.doc, QUESTION).toString() === 'First text');
    expect((await stepRow(server, formId, STEP))?.data[QUESTION]).toBe('First text');
    const [restoreRevision] = await historyWhere(principal, formId, 'the restore revision', (revisions) => revisions.length === 3);
    expect(restoreRevision).toMatchObject({ kind: 'restore', restoredFromId: first!._id, before: 'Second text', after: 'First text' });
    expect(restoreRevision!.authors.map((author) => author.id)).toEqual([people.principal.id]);

    // Undoing the restore: the text before it.
    expect((await principal.post(planPath(formId, `/history/${restoreRevision!._id}/restore`), { to: 'before' })).status).toBe(200);
    await waitFor('the editor sees the undo', () => textOf(b.doc, QUESTION).toString() === 'Second text');
    expect(second!.after).toBe('Second text');
  });

  it('who may read and restore: readers of the plan read, outsiders get 403, bad input 4xx', async () => {
    const formId = await freshPlan('Access');
    expect((await save(principal, formId, 'Text')).status).toBe(200);
    const [revision] = await historyWhere(principal, formId, 'a revision', (revisions) => revisions.length === 1);
    expect((await teacher.get(planPath(formId, '/history'))).status).toBe(403);
    expect((await teacher.post(planPath(formId, `/history/${revision!._id}/restore`), {})).status).toBe(403);
    expect((await principal.get(planPath(formId, '/history?limit=500'))).status).toBe(400);
    expect((await principal.get(planPath(formId, '/history?questionId=../x'))).status).toBe(400);
    expect((await principal.post(planPath(formId, `/history/${'b'.repeat(24)}/restore`), {})).status).toBe(404);
    expect((await principal.post(planPath(formId, `/history/${revision!._id}/restore`), { to: 'sideways' })).status).toBe(400);
    // The whole plan's history, paged.
    const page = await principal.get(planPath(formId, '/history?limit=1'));
    expect(page.body).toMatchObject({ page: 1, limit: 1, total: 1 });
  });
});

describe('plan versions', () => {
  it('each decision takes a version that later edits never change; a step comes back from one; restores wait while the plan is with the district', async () => {
    const formId = await freshPlan('Versions');
    expect((await save(principal, formId, 'As submitted')).status).toBe(200);
    expect((await principal.put(planPath(formId), { action: 'submit' })).status).toBe(200);
    const [revision] = await historyWhere(principal, formId, 'a revision', (revisions) => revisions.length === 1);

    // With the district: neither a restore nor a step from a version changes anything.
    const refused = await principal.post(planPath(formId, `/history/${revision!._id}/restore`), { to: 'before' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/submitted/);
    let versions = ((await principal.get(planPath(formId, '/versions'))).body as VersionList).versions;
    expect(versions.map((version) => version.kind)).toEqual(['submitted']);
    expect((await principal.post(planPath(formId, `/versions/${versions[0]!._id}/restore`), { stepKey: STEP })).status).toBe(403);

    expect((await admin.put(planPath(formId), { action: 'review', status: 'under_review' })).status).toBe(200);
    expect((await admin.put(planPath(formId), { action: 'review', status: 'rejected', comment: 'Name the dean' })).status).toBe(200);
    expect((await save(principal, formId, 'After the return')).status).toBe(200);

    versions = ((await ap.get(planPath(formId, '/versions'))).body as VersionList).versions;
    expect(versions.map((version) => [version.kind, version.actorName])).toEqual([
      ['returned', people.admin.name],
      ['under_review', people.admin.name],
      ['submitted', people.principal.name],
    ]);
    expect(versions[0]!.comment).toBe('Name the dean');
    const submitted = (await ap.get(planPath(formId, `/versions/${versions[2]!._id}`))).body as PlanVersion;
    expect(submitted.steps[STEP]!.data[QUESTION]).toBe('As submitted');
    // Its export prints what it held, and says which version it is.
    const pdf = async (query: string) => readPdf(Buffer.from(await (await ap.request('GET', planPath(formId, `/export/pdf${query}`))).arrayBuffer())).text;
    const asSubmitted = await pdf(`?version=${versions[2]!._id}`);
    expect(asSubmitted).toContain('As submitted');
    expect(asSubmitted).not.toContain('After the return');
    expect(asSubmitted).toMatch(/Version: Submitted on \w+ \d+, \d{4}/);
    expect(await pdf('')).toContain('After the return');
    expect((await ap.request('GET', planPath(formId, `/export/docx?version=${'d'.repeat(24)}`))).status).toBe(404);

    // The step back as submitted: written, seen in the history as a restore.
    const back = await principal.post(planPath(formId, `/versions/${versions[2]!._id}/restore`), { stepKey: STEP });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body.restored).toEqual([QUESTION]);
    expect((await stepRow(server, formId, STEP))?.data[QUESTION]).toBe('As submitted');
    await historyWhere(principal, formId, 'the restore', ([latest]) => latest?.kind === 'restore' && latest.after === 'As submitted');
    // The versions are as they were taken.
    expect(((await ap.get(planPath(formId, `/versions/${versions[0]!._id}`))).body as PlanVersion).steps[STEP]!.data[QUESTION]).toBe('As submitted');

    expect((await teacher.get(planPath(formId, '/versions'))).status).toBe(403);
    expect((await principal.get(planPath(formId, `/versions/${'c'.repeat(24)}`))).status).toBe(404);
    expect((await principal.post(planPath(formId, `/versions/${versions[0]!._id}/restore`), { stepKey: 'no such step!' })).status).toBe(400);
  });

  it('a copy for next year begins with a "copied" version and copied answers in the history are not people’s edits', async () => {
    const formId = await freshPlan('Copy');
    expect((await save(principal, formId, 'Last year')).status).toBe(200);
    const year = new Date().getUTCFullYear() + 5;
    const nextYear = `${year}-${year + 1}`;
    const copied = await admin.post(planPath(formId, '/duplicate'), { schoolYear: nextYear });
    expect(copied.status, JSON.stringify(copied.body)).toBe(200);
    const copyId = copied.body.formId as string;
    const versions = ((await admin.get(planPath(copyId, '/versions'))).body as VersionList).versions;
    expect(versions.map((version) => [version.kind, version.actorName])).toEqual([['copied', people.admin.name]]);
    const version = (await admin.get(planPath(copyId, `/versions/${versions[0]!._id}`))).body as PlanVersion;
    expect(version.steps[STEP]!.data[QUESTION]).toBe('Last year');
    expect(await server.services.storage.db.select().from(answerRevisions).where(eq(answerRevisions.formId, copyId))).toEqual([]);
  });
});
