/**
 * Live co-editing on /collab (docs/collaboration.md), proven with real @hocuspocus/provider clients
 * against a real in-process server (embedded PGlite by default; DATABASE_URL/REDIS_URL when set):
 * convergence of concurrent text and table edits, autosaves storing the converged document, REST
 * saves of non-live users reaching the live document, refusals before the document loads,
 * read-only connections, persistence of the Y.js state, offline edits merging on reconnect, and
 * revocation of open connections.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import * as Y from 'yjs';
import { eq } from 'drizzle-orm';
import { collabDocumentName, currentSchoolYear, previousSchoolYear, readAnswers, writeAnswers, writeCell, type StepAnswers } from '@csp/shared';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { signIn, signInAll, sessionToken } from '../testing/signIn.ts';
import type { HttpClient } from '../testing/httpClient.ts';
import { collabDocuments } from '../storage/schema.ts';
import type { CollabServer } from './collabServer.ts';
import { pause, waitFor } from '../testing/wait.ts';
import { answersOfState, expectRefused, openLiveClient, rowsOf, sorted, tableRow, textOf, waitForConvergence, type LiveClient } from '../testing/collab.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../testing/demoNames.ts';
import { autosave, createPlan, formIdOf, lockOf, readStep, saveBody, shareWith, stepPath, stepRow, whoAmI } from '../testing/plans.ts';
import { stepOf } from '../testing/bundledBank.ts';

const STEP = 'attendancePlan';
const { step } = stepOf(STEP);
const ROLE_HEADERS = ['Role', 'First Name', 'Last Name', 'E-mail'];

let server: TestServer;
let collab: CollabServer;
let principal: HttpClient;
let principalTab2: HttpClient;
let admin: HttpClient;
let coordinator: HttpClient;
let teacherRiverside: HttpClient;
let teacherHarbor: HttpClient;
let apHarbor: HttpClient;
let apRiverside: HttpClient;
let harborFormId: string;

const clients: LiveClient[] = [];

/** A live client that is closed after the test. */
async function live(session: HttpClient, formId: string, stepKey: string, label: string, doc?: Y.Doc): Promise<LiveClient> {
  const client = await openLiveClient(server.url, sessionToken(session), formId, stepKey, { label, ...(doc ? { doc } : {}) });
  clients.push(client);
  return client;
}

/** The server's own copy of a loaded document, or undefined when it is not loaded. */
function serverDocument(formId: string, stepKey: string): Y.Doc | undefined {
  return collab.hocuspocus.documents.get(collabDocumentName(formId, stepKey));
}

async function storedState(formId: string, stepKey: string): Promise<Uint8Array | undefined> {
  const [row] = await server.services.storage.db
    .select({ state: collabDocuments.state })
    .from(collabDocuments)
    .where(eq(collabDocuments.name, collabDocumentName(formId, stepKey)))
    .limit(1);
  return row?.state;
}

/** Waits until the server has unloaded the document (every client gone) and stored it. */
async function waitForUnloaded(formId: string, stepKey: string): Promise<StepAnswers> {
  await waitFor(`${stepKey} of ${formId} to be unloaded`, () => !serverDocument(formId, stepKey));
  const state = await storedState(formId, stepKey);
  expect(state, 'a stored collab_documents row').toBeDefined();
  return answersOfState(state!);
}

beforeAll(async () => {
  server = await startTestServer();
  collab = server.services.liveDocuments as CollabServer;
  [principal, principalTab2, admin, coordinator, teacherRiverside, teacherHarbor, apHarbor, apRiverside] = await signInAll(server.url, [
    PRINCIPAL_HARBOR,
    PRINCIPAL_HARBOR,
    SUPERADMIN,
    'coordinator.harbor@example.org',
    'teacher.riverside@example.org',
    'teacher.harbor@example.org',
    'ap.harbor@example.org',
    'ap.riverside@example.org',
  ]);
  harborFormId = await formIdOf(principal, HARBOR);
});

afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});

afterAll(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await server?.stop();
});

describe('co-editing converges', () => {
  it('two providers typing in the same text merge by character; both autosaves store the converged document', async () => {
    const formId = await createPlan(admin, 'Converge');
    const a = await live(principal, formId, STEP, 'principal');
    const b = await live(admin, formId, STEP, 'admin');
    const base = 'Barriers: late buses, winter weather.';
    writeAnswers(a.doc, step, { att_barriers: base });
    await waitFor('the admin to receive the base text', () => b.answers().att_barriers === base);

    // Neither sees the other's keystrokes before typing: no await between the two edits.
    const textA = textOf(a.doc, 'att_barriers');
    const textB = textOf(b.doc, 'att_barriers');
    [...'very '].forEach((char, i) => textA.insert(base.indexOf('late') + i, char));
    writeAnswers(a.doc, step, { att_barriers: textA.toString().replace('Barriers', 'Main barriers') });
    [...' in December'].forEach((char, i) => textB.insert(base.indexOf('weather') + 'weather'.length + i, char));
    writeAnswers(b.doc, step, { att_barriers: `${textB.toString()} Also: illness.` });
    expect(a.answers().att_barriers).not.toBe(b.answers().att_barriers);

    const converged = await waitForConvergence([a, b]);
    expect(converged.att_barriers).toBe('Main barriers: very late buses, winter weather in December. Also: illness.');
    expect(readAnswers(serverDocument(formId, STEP)!)).toEqual(converged);

    // Each autosaves as the web client does, from the revision it loaded.
    const { revisionCount } = await readStep(principal, formId, STEP);
    const saveA = await autosave(principal, formId, STEP, a.doc, revisionCount);
    expect(saveA.status, JSON.stringify(saveA.body)).toBe(200);
    // The principal now holds the step lock; the admin edits live, so its save goes through.
    const saveB = await autosave(admin, formId, STEP, b.doc, revisionCount);
    expect(saveB.status, JSON.stringify(saveB.body)).toBe(200);
    expect(saveB.body.conflicts).toBeUndefined();
    const stored = await readStep(admin, formId, STEP);
    expect(stored.stepData.data).toEqual(converged);
    expect(stored.revisionCount).toBeGreaterThan(revisionCount);
  });

  it('table rows added, edited and removed concurrently converge', async () => {
    const formId = await createPlan(admin, 'Tables');
    const a = await live(principal, formId, STEP, 'principal');
    const b = await live(admin, formId, STEP, 'admin');
    const initial = [
      ['Principal', 'Elena', 'Rodriguez', 'elena@example.org'],
      ['Coordinator', 'Priya', 'Natarajan', 'priya@example.org'],
      ['Teacher', 'Samuel', 'Okafor', 'samuel@example.org'],
      ['Counselor', 'Marcus', 'Bell', 'marcus@example.org'],
    ];
    writeAnswers(a.doc, step, { att_roles: { headers: ROLE_HEADERS, rows: initial } });
    await waitFor('the admin to receive the table', () => (b.answers().att_roles as { rows: string[][] } | undefined)?.rows.length === 4);

    const rowA = ['Nurse', 'Ana', 'Diaz', 'ana@example.org'];
    const rowB = ['Aide', 'Ben', 'Stone', 'ben@example.org'];
    const rowsA = rowsOf(a.doc, 'att_roles');
    const rowsB = rowsOf(b.doc, 'att_roles');
    // Concurrently: A edits row 0, edits row 3, removes row 2, adds a row; B edits row 1, edits
    // row 2, removes row 3, adds a row; and both write the same cell of row 0.
    a.doc.transact(() => {
      writeCell(rowsA.get(0), 1, 'Alicia');
      writeCell(rowsA.get(0), 2, 'from A');
      writeCell(rowsA.get(3), 0, 'edited by A');
      rowsA.delete(2, 1);
      rowsA.push([tableRow(rowA)]);
    });
    b.doc.transact(() => {
      writeCell(rowsB.get(1), 3, 'priya.new@example.org');
      writeCell(rowsB.get(0), 2, 'from B');
      writeCell(rowsB.get(2), 2, 'edited by B');
      rowsB.delete(3, 1);
      rowsB.push([tableRow(rowB)]);
    });

    const converged = await waitForConvergence([a, b]);
    const table = converged.att_roles as { headers: string[]; rows: string[][] };
    expect(table.headers).toEqual(ROLE_HEADERS);
    expect(table.rows).toHaveLength(4);
    expect(table.rows[0]!.slice(0, 2)).toEqual(['Principal', 'Alicia']);
    // Both wrote the same cell: it merges by character, nobody's words are lost.
    expect(['from Afrom B', 'from Bfrom A']).toContain(table.rows[0]![2]);
    expect(table.rows[1]).toEqual(['Coordinator', 'Priya', 'Natarajan', 'priya.new@example.org']);
    // Removed rows stay removed (an edit to a row removed concurrently does not bring it back).
    expect(table.rows.slice(2).sort()).toEqual([rowA, rowB].sort());
    expect(JSON.stringify(table)).not.toContain('edited by');
    expect(readAnswers(serverDocument(formId, STEP)!)).toEqual(converged);

    const { revisionCount } = await readStep(principal, formId, STEP);
    const save = await autosave(principal, formId, STEP, a.doc, revisionCount);
    expect(save.status, JSON.stringify(save.body)).toBe(200);
    expect((await readStep(principal, formId, STEP)).stepData.data).toEqual(converged);
  });

  it("a REST save by a user who is not connected appears in connected clients' documents", async () => {
    const formId = await createPlan(admin, 'RestSave');
    const a = await live(principal, formId, STEP, 'principal tab 1');
    const c = await live(principalTab2, formId, STEP, 'principal tab 2');
    writeAnswers(a.doc, step, { att_barriers: 'Typed live, not saved yet.' });
    await waitFor('tab 2 to see the live text', () => c.answers().att_barriers === 'Typed live, not saved yet.');

    // The Super Admin saves through the API without being connected to the document.
    const table = { headers: ROLE_HEADERS, rows: [['Attendance teacher', 'Jordan', 'Lee', 'jordan@example.org']] };
    const saved = await admin.put(stepPath(formId, STEP), {
      stepData: { data: { att_coordinatorName: 'Jordan Lee', att_hasCommittee: true, att_roles: table } },
      mergeStrategy: 'last-write-wins',
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    for (const client of [a, c]) {
      await waitFor(`${client.label} to receive the REST save`, () => {
        const answers = client.answers();
        return answers.att_coordinatorName === 'Jordan Lee' && answers.att_hasCommittee === true && JSON.stringify(answers.att_roles) === JSON.stringify(table);
      });
      // The unsaved live typing is not clobbered by the save.
      expect(client.answers().att_barriers).toBe('Typed live, not saved yet.');
    }
    await waitForConvergence([a, c]);
    // ...and keeps merging: a later REST edit of a text changes only what it changed.
    writeAnswers(c.doc, step, { att_coordinatorName: 'Jordan Lee (attendance)' });
    await waitFor('tab 1 to see the live edit', () => a.answers().att_coordinatorName === 'Jordan Lee (attendance)');
    const second = await admin.put(stepPath(formId, STEP), { stepData: { data: { att_strategy: 'Daily check-ins.' } } });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const converged = await waitFor('both tabs to receive the second save', async () => {
      const answers = await waitForConvergence([a, c]);
      return answers.att_strategy === 'Daily check-ins.' ? answers : null;
    });
    expect(converged.att_coordinatorName).toBe('Jordan Lee (attendance)');
    expect(converged.att_barriers).toBe('Typed live, not saved yet.');
  });
});

describe('access on connect', () => {
  it('refuses a connection without a session or with a garbage token, before the document loads', async () => {
    const formId = await createPlan(admin, 'Refused');
    for (const token of ['', 'garbage-token', `${sessionToken(principal)}x`]) {
      const { received } = await expectRefused(server.url, token, formId, STEP);
      expect(received).toEqual({});
    }
    expect(serverDocument(formId, STEP)).toBeUndefined();
    expect(await storedState(formId, STEP)).toBeUndefined();
    // The owner's own session is accepted on the same document.
    await live(principal, formId, STEP, 'owner');
  });

  it('refuses a WebSocket upgrade from a foreign Origin (cross-site hijacking) and upgrades for its own origin', async () => {
    const upgrade = (origin: string) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request(`${server.url}/collab`, {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': randomBytes(16).toString('base64'),
            origin,
          },
        });
        request.on('upgrade', (response, socket) => {
          socket.destroy();
          resolve(response.statusCode!);
        });
        request.on('response', (response) => {
          response.resume();
          resolve(response.statusCode!);
        });
        request.on('error', reject);
        request.end();
      });
    expect(await upgrade('https://evil.example.com')).toBe(403);
    expect(await upgrade(new URL(server.url).origin)).toBe(101);
  });

  it('refuses a user without access to the plan before the document loads', async () => {
    const stepKey = 'militaryRecruitment';
    await expectRefused(server.url, sessionToken(teacherRiverside), harborFormId, stepKey);
    expect(serverDocument(harborFormId, stepKey)).toBeUndefined();
    expect(await storedState(harborFormId, stepKey)).toBeUndefined();
  });

  it('refuses a section-limited share on the other steps; its own section is editable', async () => {
    const formId = await createPlan(admin, 'Sections');
    await shareWith(admin, formId, [(await whoAmI(teacherHarbor)).id], 'edit', [STEP]);
    await expectRefused(server.url, sessionToken(teacherHarbor), formId, 'suicidePrevention');
    expect(serverDocument(formId, 'suicidePrevention')).toBeUndefined();
    expect(await storedState(formId, 'suicidePrevention')).toBeUndefined();

    const teacher = await live(teacherHarbor, formId, STEP, 'teacher');
    expect(teacher.scope()).toBe('read-write');
    const owner = await live(principal, formId, STEP, 'owner');
    writeAnswers(teacher.doc, step, { att_lateness: 'Tardy sweeps at 8:10.' });
    await waitFor('the owner to see the shared user’s edit', () => owner.answers().att_lateness === 'Tardy sweeps at 8:10.');
  });

  it('a view-only user (coordinator) connects read-only: edits never reach the other client nor the stored state', async () => {
    const stepKey = 'cellPhonePolicy';
    const { step: phoneStep } = stepOf(stepKey);
    const owner = await live(principal, harborFormId, stepKey, 'principal');
    const viewer = await live(coordinator, harborFormId, stepKey, 'coordinator');
    expect(owner.scope()).toBe('read-write');
    expect(viewer.scope()).toBe('readonly');

    // The viewer still follows live edits.
    writeAnswers(owner.doc, phoneStep, { cell_exceptions: 'Medical needs only.' });
    await waitFor('the viewer to see the principal’s edit', () => viewer.answers().cell_exceptions === 'Medical needs only.');

    writeAnswers(viewer.doc, phoneStep, { cell_consequences: 'VIEWER EDIT', cell_exceptions: 'Medical needs only. VIEWER' });
    // The server answers the viewer's update with "not applied".
    await waitFor('the server to refuse the viewer’s update', () => viewer.syncAcks.includes(false));
    expect(readAnswers(serverDocument(harborFormId, stepKey)!)).toEqual({ cell_exceptions: 'Medical needs only.' });
    // A later edit of the principal reaches the viewer, and the viewer's edit never reached the principal.
    writeAnswers(owner.doc, phoneStep, { cell_pouchProcess: 'Pouches at homeroom.' });
    await waitFor('the viewer to see the next edit', () => viewer.answers().cell_pouchProcess === 'Pouches at homeroom.');
    expect(owner.answers()).toEqual({ cell_exceptions: 'Medical needs only.', cell_pouchProcess: 'Pouches at homeroom.' });
    expect(JSON.stringify(readAnswers(serverDocument(harborFormId, stepKey)!))).not.toContain('VIEWER');

    owner.destroy();
    viewer.destroy();
    const stored = await waitForUnloaded(harborFormId, stepKey);
    expect(stored).toEqual({ cell_exceptions: 'Medical needs only.', cell_pouchProcess: 'Pouches at homeroom.' });
    // The record is written from the stored document, without the viewer's edit.
    expect((await readStep(principal, harborFormId, stepKey)).stepData.data).toEqual(stored);
  });

  it('an archived-year plan connects read-only for its principal, seeded from its stored answers', async () => {
    const archivedFormId = await formIdOf(principal, HARBOR, previousSchoolYear(currentSchoolYear()));
    const stored = await readStep(principal, archivedFormId, STEP);
    expect(Object.keys(stored.stepData.data).length).toBeGreaterThan(0);
    const client = await live(principal, archivedFormId, STEP, 'principal (archived)');
    expect(client.scope()).toBe('readonly');
    expect(sorted(client.answers())).toEqual(sorted(stored.stepData.data));

    writeAnswers(client.doc, step, { att_barriers: 'ARCHIVED EDIT' });
    await waitFor('the server to refuse the update', () => client.syncAcks.includes(false));
    expect(sorted(readAnswers(serverDocument(archivedFormId, STEP)!))).toEqual(sorted(stored.stepData.data));
    client.destroy();
    expect(JSON.stringify(await waitForUnloaded(archivedFormId, STEP))).not.toContain('ARCHIVED EDIT');
    expect((await readStep(principal, archivedFormId, STEP)).stepData.data).toEqual(stored.stepData.data);
  });
});

describe('persistence', () => {
  it('after every client disconnects the state is in collab_documents, and is served to the next client', async () => {
    const formId = await createPlan(admin, 'Persist');
    const a = await live(principal, formId, STEP, 'principal');
    const b = await live(admin, formId, STEP, 'admin');
    writeAnswers(a.doc, step, { att_barriers: 'Persisted text.', att_homeVisits: true });
    writeAnswers(b.doc, step, { att_roles: { headers: ROLE_HEADERS, rows: [['Dean', 'Kim', 'Park', 'kim@example.org']] }, att_hasCommittee: false });
    const converged = await waitForConvergence([a, b]);
    a.destroy();
    b.destroy();

    expect(await waitForUnloaded(formId, STEP)).toEqual(converged);
    const next = await live(admin, formId, STEP, 'next');
    expect(next.answers()).toEqual(converged);
  });

  it('while its editors stay connected, a document is stored within seconds (the debounce, then at most the spread)', async () => {
    const formId = await createPlan(admin, 'Stored while open');
    const a = await live(principal, formId, STEP, 'principal');
    writeAnswers(a.doc, step, { att_barriers: 'Stored while the editor stays.' });
    const stored = await waitFor(
      'the open document to be stored',
      async () => {
        const state = await storedState(formId, STEP);
        return state && answersOfState(state).att_barriers === 'Stored while the editor stays.' ? state : null;
      },
      { timeoutMs: 10_000 },
    );
    expect(stored).toBeDefined();
    expect(serverDocument(formId, STEP), 'still loaded: its editor is connected').toBeDefined();
  });

  it('a client that edits while disconnected merges its changes on reconnect, even after the document was unloaded', async () => {
    const formId = await createPlan(admin, 'Offline');
    const a = await live(principal, formId, STEP, 'principal');
    const b = await live(admin, formId, STEP, 'admin');
    const base = 'Outreach calls by 10am.';
    writeAnswers(a.doc, step, { att_sameDayOutreach: base, att_homeVisits: false });
    await waitForConvergence([a, b]);

    a.disconnect();
    // Offline: A prepends and toggles; meanwhile B appends live.
    writeAnswers(a.doc, step, { att_sameDayOutreach: `Offline A: ${base}`, att_homeVisits: true });
    writeAnswers(b.doc, step, { att_sameDayOutreach: `${base} (B online)`, att_incentives: 'Raffle.' });
    await b.settled();
    expect(readAnswers(serverDocument(formId, STEP)!).att_sameDayOutreach).toBe(`${base} (B online)`);

    // Everyone leaves: the server stores and unloads the document; A comes back first.
    b.disconnect();
    await waitForUnloaded(formId, STEP);
    await a.reconnect();
    await a.settled();
    await b.reconnect();
    const converged = await waitForConvergence([a, b]);
    expect(converged).toEqual({ att_sameDayOutreach: `Offline A: ${base} (B online)`, att_homeVisits: true, att_incentives: 'Raffle.' });

    a.destroy();
    b.destroy();
    expect(await waitForUnloaded(formId, STEP)).toEqual(converged);
  });
});

describe('revocation closes open connections', () => {
  /** The server closed the document connection (a "close" message) and it is no longer authenticated. */
  async function waitForClosed(client: LiveClient) {
    await waitFor(`${client.label}'s connection to be closed by the server`, () => client.closes.length > 0 && !client.provider?.isAuthenticated, {
      timeoutMs: 10_000,
    });
  }

  it('when the share is removed', async () => {
    const formId = await createPlan(admin, 'Unshare');
    const ap = await whoAmI(apHarbor);
    await shareWith(admin, formId, [ap.id], 'edit');
    const shared = await live(apHarbor, formId, STEP, 'shared user');
    const owner = await live(principal, formId, STEP, 'owner');
    expect(shared.scope()).toBe('read-write');

    const removed = await admin.delete('/api/admin/forms/share', { formId, userIds: [ap.id] });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    await waitForClosed(shared);
    expect(owner.isLive()).toBe(true);
    await expectRefused(server.url, sessionToken(apHarbor), formId, STEP);
  });

  it('when the share is narrowed to other sections (and made read-only when narrowed to view)', async () => {
    const formId = await createPlan(admin, 'Narrow');
    const ap = await whoAmI(apHarbor);
    await shareWith(admin, formId, [ap.id], 'edit');
    const onStep = await live(apHarbor, formId, STEP, 'shared user on the step');
    const onOther = await live(apHarbor, formId, 'counselingPlan', 'shared user on another step');
    const owner = await live(principal, formId, STEP, 'owner');

    // Edit → view: the open connection stays, but no longer writes.
    await shareWith(admin, formId, [ap.id], 'view');
    await waitFor('the downgraded connection to refuse an update', async () => {
      writeAnswers(onStep.doc, step, { att_barriers: `after view-only ${onStep.syncAcks.length}` });
      await waitFor('an acknowledgement', () => onStep.provider!.unsyncedChanges === 0 || onStep.syncAcks.at(-1) === false);
      return onStep.syncAcks.at(-1) === false;
    });
    const afterDowngrade = onStep.syncAcks.length;
    writeAnswers(onStep.doc, step, { att_lateness: 'VIEW-ONLY EDIT' });
    await waitFor('the refusal', () => onStep.syncAcks.length > afterDowngrade);
    expect(onStep.syncAcks.at(-1)).toBe(false);
    expect(JSON.stringify(readAnswers(serverDocument(formId, STEP)!))).not.toContain('VIEW-ONLY EDIT');
    expect(JSON.stringify(owner.answers())).not.toContain('VIEW-ONLY EDIT');

    // Limited to another section: the connection on this step is closed, the other step's stays.
    await shareWith(admin, formId, [ap.id], 'edit', ['counselingPlan']);
    await waitForClosed(onStep);
    expect(onOther.isLive()).toBe(true);
    await expectRefused(server.url, sessionToken(apHarbor), formId, STEP);
  });

  it('when the user signs out', async () => {
    const formId = await createPlan(admin, 'SignOut');
    const session = await signIn(server.url, PRINCIPAL_HARBOR);
    const token = sessionToken(session);
    const client = await live(session, formId, STEP, 'signing out');
    const other = await live(principal, formId, STEP, 'other session');

    expect((await session.post('/api/auth/signout', {})).status).toBe(200);
    await waitForClosed(client);
    expect(other.isLive()).toBe(true);
    await expectRefused(server.url, token, formId, STEP);
  });

  it('when the user is deactivated', async () => {
    const formId = await createPlan(admin, 'Deactivate');
    const user = await whoAmI(apRiverside);
    await shareWith(admin, formId, [user.id], 'edit');
    const token = sessionToken(apRiverside);
    const client = await live(apRiverside, formId, STEP, 'deactivated user');
    try {
      const deactivated = await admin.put('/api/users', { userId: user.id, isActive: false });
      expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);
      await waitForClosed(client);
      await expectRefused(server.url, token, formId, STEP);
    } finally {
      await admin.put('/api/users', { userId: user.id, isActive: true });
    }
  });
});

describe('the record follows the merged document', () => {
  it('live edits reach the step record with no save, attributed, with the step lock, and each client hears it is stored', async () => {
    const formId = await createPlan(admin, 'Recorded live');
    const a = await live(principal, formId, STEP, 'principal');
    const b = await live(admin, formId, STEP, 'admin');
    expect(a.stored, 'told what is stored on connect').not.toBeNull();
    writeAnswers(a.doc, step, { att_barriers: 'Recorded from the document.' });
    await a.saved();
    await b.saved();
    const record = await readStep(principal, formId, STEP);
    expect(record.stepData.data).toEqual({ att_barriers: 'Recorded from the document.' });
    expect(record.revisionCount).toBe(1);
    const me = await whoAmI(principal);
    expect((await stepRow(server, formId, STEP))!.updatedBy).toBe(me.id);
    expect((await lockOf(admin, formId, STEP))?.lockedBy.userId, 'the writer holds the step lock').toBe(me.id);
  });

  it('a save through the route by someone who is connected live reaches the document, and its next record keeps it', async () => {
    const formId = await createPlan(admin, 'Saved beside live');
    const a = await live(principal, formId, STEP, 'principal');
    writeAnswers(a.doc, step, { att_barriers: 'Typed live.' });
    await a.saved();
    // The same person, through the route (an API client, a restore): not typed into the document.
    const saved = await principal.put(stepPath(formId, STEP), saveBody({ att_barriers: 'Saved through the route.' }));
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    await waitFor('the document to take the save', () => textOf(a.doc, 'att_barriers').toString() === 'Saved through the route.');
    // A later live edit elsewhere makes the document record again: the saved answer stays.
    writeAnswers(a.doc, step, { att_strategy: 'Another answer.' });
    await a.saved();
    expect((await readStep(principal, formId, STEP)).stepData.data).toMatchObject({
      att_barriers: 'Saved through the route.',
      att_strategy: 'Another answer.',
    });
  });

  it('a client back from a long absence never removes what a colleague typed meanwhile: every document and the record hold both', async () => {
    const formId = await createPlan(admin, 'Long absence');
    const a = await live(principal, formId, STEP, 'principal');
    const b = await live(admin, formId, STEP, 'admin');
    writeAnswers(a.doc, step, { att_barriers: 'Base2.' });
    await waitForConvergence([a, b]);

    a.disconnect();
    textOf(a.doc, 'att_barriers').insert('Base2.'.length, ' ElenaOffline.');
    textOf(b.doc, 'att_barriers').insert('Base2.'.length, ' MarcusOnline.');
    await b.saved();
    expect((await readStep(admin, formId, STEP)).stepData.data.att_barriers).toBe('Base2. MarcusOnline.');

    // Everyone else leaves: the document is stored and unloaded before A is back.
    b.disconnect();
    await waitForUnloaded(formId, STEP);
    await a.reconnect();
    await a.saved();
    await b.reconnect();
    const converged = await waitForConvergence([a, b]);
    expect(converged.att_barriers).toMatch(/^Base2\. (MarcusOnline\. ElenaOffline\.|ElenaOffline\. MarcusOnline\.)$/);
    await waitFor(
      'the record to follow the converged document',
      async () => (await readStep(admin, formId, STEP)).stepData.data.att_barriers === converged.att_barriers,
    );
  });
});

describe('a plan with the district holds still live', () => {
  it('submitted while its editors are connected, the document turns read-only for everyone (an update is refused and never stored); returned, it is editable again', async () => {
    const formId = await createPlan(admin, 'Submitted live');
    const a = await live(principal, formId, STEP, 'principal');
    const b = await live(admin, formId, STEP, 'admin');
    writeAnswers(a.doc, step, { att_barriers: 'Before submitting.' });
    await a.saved();

    expect((await principal.put(`/api/forms/${formId}`, { action: 'submit' })).status).toBe(200);
    await waitFor('both connections to turn read-only', async () => {
      const acks = [a.syncAcks.length, b.syncAcks.length];
      writeAnswers(a.doc, step, { att_barriers: `Before submitting. A${acks[0]}` });
      writeAnswers(b.doc, step, { att_strategy: `B${acks[1]}` });
      await pause(200);
      return a.syncAcks.at(-1) === false && b.syncAcks.at(-1) === false;
    });
    // Read-only on both now: what either types is refused, never reaches the document or the record.
    const acked = [a.syncAcks.length, b.syncAcks.length];
    writeAnswers(a.doc, step, { att_incentives: 'AFTER THE LOCK (A)' });
    writeAnswers(b.doc, step, { att_lateness: 'AFTER THE LOCK (B)' });
    await waitFor('both updates refused', () => a.syncAcks.length > acked[0]! && b.syncAcks.length > acked[1]!);
    expect([a.syncAcks.at(-1), b.syncAcks.at(-1)]).toEqual([false, false]);
    await pause(2_500);
    expect(JSON.stringify(readAnswers(serverDocument(formId, STEP)!))).not.toContain('AFTER THE LOCK');
    expect(JSON.stringify((await readStep(admin, formId, STEP)).stepData.data)).not.toContain('AFTER THE LOCK');

    expect((await admin.put(`/api/forms/${formId}`, { action: 'review' })).status).toBe(200);
    expect((await admin.put(`/api/forms/${formId}`, { action: 'review', status: 'rejected', comment: 'Add the barriers.' })).status).toBe(200);
    const fresh = await live(principal, formId, STEP, 'principal again');
    writeAnswers(fresh.doc, step, { att_incentives: 'Returned, then changed.' });
    await fresh.saved();
    await waitFor(
      'the record to hold the change',
      async () => (await readStep(admin, formId, STEP)).stepData.data.att_incentives === 'Returned, then changed.',
    );
  });
});
