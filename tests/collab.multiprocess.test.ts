/**
 * Co-editing across two real server processes sharing PostgreSQL and Redis (Hocuspocus Redis
 * extension). A randomized, seeded convergence test: providers spread over both processes make
 * random concurrent edits (text inserts and deletes, table cells and rows, yes/no toggles and
 * selects), drop off and come back (often to the other process), and autosave through the step
 * route as the web client does. At the end every document converges, a final autosave stores
 * exactly the converged document, the persisted Y.js state decodes to it, and no save that was
 * acknowledged with 200 is lost. Then one process is killed with SIGKILL mid-session: its clients
 * move to the survivor with their own Y.Doc, and edits nobody acknowledged yet (unsent, offline)
 * still merge.
 *
 * Needs DATABASE_URL (two processes cannot share an embedded PGlite) and REDIS_URL. Replay a run
 * with COLLAB_SEED=<printed seed>.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { ANSWERS_MAP, collabDocumentName, readAnswers, writeAnswers, writeCell, type StepAnswers, type TableAnswer } from '@csp/shared';
import { createTestDatabase } from '../server/src/testing/testDatabase.ts';
import { sharedStoreEnv, startServerProcess, type ServerProcess } from '../server/src/testing/serverProcess.ts';
import { signIn, sessionToken, clientWithToken } from '../server/src/testing/signIn.ts';
import { openStorage, type Storage } from '../server/src/storage/database.ts';
import { collabDocuments, planSteps } from '../server/src/storage/schema.ts';
import { createPubSubClient } from '../server/src/kv/redis.ts';
import { answersOfState, openLiveClient, rowsOf, sorted, tableRow, textOf, waitForConvergence, type LiveClient } from '../server/src/testing/collab.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../server/src/testing/demoNames.ts';
import { formIdOf, readStep, shareWith, stepPath, whoAmI } from '../server/src/testing/plans.ts';
import { stepOf } from '../server/src/testing/bundledBank.ts';
import { Random, seedFromEnv } from '../server/src/testing/random.ts';
import { pause, waitFor } from '../server/src/testing/wait.ts';

const STEP = 'attendancePlan';
const { step } = stepOf(STEP);
const TEXTS = ['att_coordinatorName', 'att_barriers', 'att_strategy', 'att_sameDayOutreach'] as const;
const TABLES = ['att_roles', 'att_partnerPrograms'] as const;
const YES_NO = ['att_hasCommittee', 'att_homeVisits'] as const;
const SELECT = 'att_committeeFrequency';
const SELECT_VALUES = step.questions.find((q) => q.id === SELECT)!.options!.map((option) => option.value);

const CLIENTS = 6;
const ROUNDS = 30;
const MAX_TEXT = 300;
const MAX_ROWS = 8;

const USERS = [
  PRINCIPAL_HARBOR,
  SUPERADMIN,
  'ap.harbor@example.org',
  'coordinator.harbor@example.org',
  'teacher.harbor@example.org',
  'teacher.riverside@example.org',
];

/** One editor: a user's session, its live document, and the revision its autosaves are based on. */
interface Editor {
  label: string;
  token: string;
  live: LiveClient;
  baseRevision: number;
  /** Rounds left offline (0: connected). */
  offlineRounds: number;
}

/** A save the server acknowledged with 200. */
interface Acknowledged {
  by: string;
  via: string;
  sent: StepAnswers;
  revisionCount: number;
  data: StepAnswers;
  conflicts: string[];
}

const initialAnswers = (): StepAnswers => ({
  att_coordinatorName: 'Morgan Hale',
  att_barriers: 'Late buses and winter weather.',
  att_strategy: 'Daily calls and weekly attendance meetings.',
  att_sameDayOutreach: 'Calls before 10am.',
  att_roles: {
    headers: ['Role', 'First Name', 'Last Name', 'E-mail'],
    rows: [
      ['Coordinator', 'Morgan', 'Hale', 'morgan@example.org'],
      ['Counselor', 'Riley', 'Stone', 'riley@example.org'],
    ],
  },
  att_partnerPrograms: { headers: ['Program Name', 'Grade Level', 'Timeline'], rows: [['Walking school bus', 'K-2', 'Fall']] },
  att_hasCommittee: true,
  att_homeVisits: false,
  att_committeeFrequency: SELECT_VALUES[0]!,
});

describe.skipIf(!process.env.DATABASE_URL || !process.env.REDIS_URL)('co-editing across two server processes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let storage: Storage | undefined;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let formId: string;
  let env: Record<string, string> = {};
  let c: ServerProcess | undefined;
  let tokens: string[] = [];
  const editors: Editor[] = [];
  const acknowledged: Acknowledged[] = [];
  const statuses = new Map<number, number>();
  const random = new Random(seedFromEnv());

  const serverAt = (url: string) => (url === a?.url ? 'A' : 'B');

  /** The web client's autosave: the live document's answers, based on the last revision this editor saw. */
  async function autosave(editor: Editor, server: ServerProcess): Promise<number> {
    const sent = readAnswers(editor.live.doc);
    const response = await clientWithToken(server, editor.token).put(stepPath(formId, STEP), {
      stepData: { data: sent },
      revisionCount: editor.baseRevision,
      mergeStrategy: 'merge',
    });
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status === 200) {
      acknowledged.push({
        by: editor.label,
        via: serverAt(server.url),
        sent,
        revisionCount: response.body.revisionCount,
        data: response.body.stepData.data,
        conflicts: response.body.conflicts ?? [],
      });
      editor.baseRevision = Math.max(editor.baseRevision, response.body.revisionCount);
    } else if (response.status !== 423) {
      // 423: another user's lock, and the server does not (yet) count this editor as live; not acknowledged.
      throw new Error(`autosave by ${editor.label} answered ${response.status}: ${JSON.stringify(response.body)}\n${server.output().slice(-3000)}`);
    }
    return response.status;
  }

  async function storedRow() {
    const rows = await storage!.db.select().from(planSteps);
    const row = rows.find((candidate) => candidate.formId === formId && candidate.stepKey === STEP);
    if (!row) throw new Error('no stored step row');
    return row;
  }

  async function persistedAnswers(stepKey = STEP): Promise<StepAnswers | undefined> {
    const rows = await storage!.db.select({ name: collabDocuments.name, state: collabDocuments.state }).from(collabDocuments);
    const row = rows.find((candidate) => candidate.name === collabDocumentName(formId, stepKey));
    return row ? answersOfState(row.state) : undefined;
  }

  /**
   * No acknowledged save is lost: each acknowledged field value is still stored unless a later
   * save (a higher field revision) wrote that field; and a 200 wrote (or already held) every
   * field it did not report as a conflict.
   */
  async function expectNoAcknowledgedSaveLost() {
    const row = await storedRow();
    expect(acknowledged.length).toBeGreaterThan(0);
    expect(row.revisionCount).toBeGreaterThanOrEqual(Math.max(...acknowledged.map((save) => save.revisionCount)));
    for (const save of acknowledged) {
      for (const [questionId, value] of Object.entries(save.sent)) {
        if (save.conflicts.includes(questionId)) continue;
        expect(save.data[questionId], `save by ${save.by} via ${save.via} (revision ${save.revisionCount}) acknowledged ${questionId}`).toEqual(value);
      }
      for (const [questionId, value] of Object.entries(save.data)) {
        if ((row.fieldRevisions[questionId] ?? 0) > save.revisionCount) continue;
        expect(row.data[questionId], `${questionId} as of revision ${save.revisionCount} (by ${save.by} via ${save.via})`).toEqual(value);
      }
    }
  }

  /** Final autosave from a converged document: based on the current revision, so nothing conflicts. */
  async function finalAutosave(editor: Editor, server: ServerProcess, converged: StepAnswers) {
    const current = await readStep(clientWithToken(server, editor.token), formId, STEP);
    editor.baseRevision = current.revisionCount;
    expect(await autosave(editor, server)).toBe(200);
    expect(acknowledged.at(-1)!.conflicts).toEqual([]);
    const stored = await readStep(clientWithToken(server, editor.token), formId, STEP);
    expect(sorted(stored.stepData.data)).toEqual(sorted(converged));
  }

  // ---- random edits on a local document (as an editor's keystrokes and clicks) ----

  function randomEdit(doc: Y.Doc) {
    const answers = doc.getMap(ANSWERS_MAP);
    const kind = random.int(10);
    if (kind < 4) {
      const text = textOf(doc, random.pick(TEXTS));
      if (text.length > MAX_TEXT || (text.length > 0 && random.chance(0.35))) {
        const at = random.int(text.length);
        text.delete(at, Math.min(1 + random.int(6), text.length - at));
      } else {
        text.insert(random.int(text.length + 1), `${random.word()} `);
      }
    } else if (kind === 4) {
      // The web client's path: write the whole answer, which applies only the changed middle.
      const questionId = random.pick(TEXTS);
      const current = textOf(doc, questionId).toString();
      const cut = random.int(current.length + 1);
      writeAnswers(doc, step, { [questionId]: `${current.slice(0, cut)}${random.word()}${current.slice(cut + random.int(3))}`.slice(0, MAX_TEXT) });
    } else if (kind < 8) {
      const tableId = random.pick(TABLES);
      const rows = rowsOf(doc, tableId);
      const columns = tableId === 'att_roles' ? 4 : 3;
      const choice = random.int(4);
      if ((choice === 0 && rows.length < MAX_ROWS) || rows.length === 0) {
        rows.insert(random.int(rows.length + 1), [tableRow(Array.from({ length: columns }, () => random.word()))]);
      } else if (choice === 1 && rows.length > 1) {
        rows.delete(random.int(rows.length), 1);
      } else {
        writeCell(rows.get(random.int(rows.length)), random.int(columns), random.word());
      }
    } else if (kind === 8) {
      answers.set(random.pick(YES_NO), random.chance(0.5));
    } else {
      answers.set(SELECT, random.pick(SELECT_VALUES));
    }
  }

  beforeAll(async () => {
    console.log(`collab.multiprocess: seed ${random.seed} (replay with COLLAB_SEED=${random.seed}); ${CLIENTS} providers, ${ROUNDS} rounds`);
    database = await createTestDatabase();
    env = sharedStoreEnv(database.databaseUrl!, process.env.REDIS_URL!, 'collab');
    // One after the other: the first migrates and seeds the fresh database.
    a = await startServerProcess(env);
    b = await startServerProcess(env);
    storage = await openStorage({ databaseUrl: database.databaseUrl, dataDir: 'memory://', poolSize: 2 });

    const sessions = await Promise.all(USERS.map((email) => signIn(a!.url, email)));
    tokens = sessions.map((session) => sessionToken(session));
    const admin = sessions[1]!;
    formId = await formIdOf(admin, HARBOR);
    // Four more editors through edit shares (the coordinator's own access is view-only).
    const ids = await Promise.all(sessions.slice(2).map((session) => whoAmI(session).then((user) => user.id)));
    await shareWith(admin, formId, ids, 'edit');
    // The stored answers the documents are seeded from, then the lock released.
    const seeded = await admin.put(stepPath(formId, STEP), { stepData: { data: initialAnswers() } });
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
    expect((await admin.post(stepPath(formId, STEP, '/unlock'), {})).status).toBe(200);
  });

  afterAll(async () => {
    for (const editor of editors) editor.live.destroy();
    await Promise.all([a?.stop(), b?.stop(), c?.stop()]);
    await storage?.close();
    await database?.drop();
  });

  it('randomized concurrent edits, disconnects and reconnects over both processes converge; saves store the converged document', async () => {
    const { revisionCount } = await readStep(clientWithToken(a!, tokens[0]!), formId, STEP);
    for (let i = 0; i < CLIENTS; i++) {
      const server = i % 2 === 0 ? a! : b!;
      const label = `${USERS[i]!.split('@')[0]}#${i}`;
      const live = await openLiveClient(server.url, tokens[i]!, formId, STEP, { label });
      editors.push({ label, token: tokens[i]!, live, baseRevision: revisionCount, offlineRounds: 0 });
    }
    const seededView = await waitForConvergence(editors.map((editor) => editor.live));
    expect(sorted(seededView)).toEqual(sorted(initialAnswers()));

    const saves: Promise<number>[] = [];
    let disconnects = 0;
    let reconnects = 0;
    let edits = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const editor of editors) {
        if (random.chance(0.75)) {
          for (let n = 1 + random.int(3); n > 0; n--, edits++) randomEdit(editor.live.doc);
        }
      }
      for (const editor of editors) {
        if (editor.offlineRounds > 0) {
          if (--editor.offlineRounds === 0) {
            reconnects++;
            await editor.live.reconnect(random.chance(0.5) ? a!.url : b!.url);
          }
        } else if (random.chance(0.12)) {
          disconnects++;
          editor.live.disconnect();
          editor.offlineRounds = 1 + random.int(3);
        }
      }
      // Autosaves run while editing goes on; only connected editors save (as the web client does),
      // through either process (a load balancer need not send HTTP where the WebSocket went).
      if (random.chance(0.4)) {
        const online = editors.filter((editor) => editor.offlineRounds === 0);
        if (online.length > 0) saves.push(autosave(random.pick(online), random.chance(0.5) ? a! : b!));
      }
      await pause(random.int(25));
    }
    await Promise.all(saves);

    // Everyone comes back; the documents converge.
    for (const editor of editors) {
      if (editor.offlineRounds > 0) {
        editor.offlineRounds = 0;
        reconnects++;
        await editor.live.reconnect(random.chance(0.5) ? a!.url : b!.url);
      }
    }
    const converged = await waitForConvergence(
      editors.map((editor) => editor.live),
      30_000,
    );
    console.log(
      `collab.multiprocess: ${edits} edits, ${disconnects} disconnects, ${reconnects} reconnects, saves ${JSON.stringify(Object.fromEntries(statuses))}; placement ${editors
        .map((editor) => `${editor.label}@${serverAt(editor.live.baseUrl)}`)
        .join(' ')}`,
    );
    expect(converged).not.toEqual(initialAnswers());

    // A final autosave stores exactly the converged document; no acknowledged save was lost.
    await finalAutosave(editors[0]!, serverAt(editors[0]!.live.baseUrl) === 'A' ? a! : b!, converged);
    await expectNoAcknowledgedSaveLost();
    // The persisted Y.js state (collab_documents, written by the processes) decodes to it too.
    await waitFor(
      'the persisted collab_documents state to equal the converged document',
      async () => {
        const persisted = await persistedAnswers();
        return persisted !== undefined && JSON.stringify(sorted(persisted)) === JSON.stringify(sorted(converged));
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  it('a REST save through process B by someone not editing live reaches the clients connected to process A', async () => {
    const stepKey = 'temporaryHousing';
    const { step: housing } = stepOf(stepKey);
    const first = await openLiveClient(a!.url, tokens[0]!, formId, stepKey, { label: 'principal on A' });
    const second = await openLiveClient(a!.url, tokens[2]!, formId, stepKey, { label: 'ap on A' });
    try {
      writeAnswers(first.doc, housing, { sth_staffTraining: 'Typed live on A.' });
      await waitFor('the second client to see the live text', () => second.answers().sth_staffTraining === 'Typed live on A.');
      // The Super Admin (not connected to this step) saves through B.
      const saved = await clientWithToken(b!, tokens[1]!).put(stepPath(formId, stepKey), {
        stepData: { data: { sth_hasStudents: true, sth_studentCount: '14', sth_transportation: 'MetroCards for families.' } },
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const expected = { sth_staffTraining: 'Typed live on A.', sth_hasStudents: true, sth_studentCount: '14', sth_transportation: 'MetroCards for families.' };
      for (const client of [first, second]) {
        await waitFor(
          `${client.label} to receive the save made through B`,
          () => JSON.stringify(sorted(client.answers())) === JSON.stringify(sorted(expected)),
        );
      }
    } finally {
      first.destroy();
      second.destroy();
    }
  });

  it('a document open in one process publishes nothing to Redis; once another process opens it, edits from before and after reach both', async () => {
    const stepKey = 'counselingPlan';
    const { step: counseling } = stepOf(stepKey);
    const textId = counseling.questions.find((q) => q.type === 'textarea' || q.type === 'text')!.id;
    // A pattern subscription sees the document's channel without counting as a subscriber of it.
    const channel = `${env.REDIS_PREFIX}hocuspocus:${collabDocumentName(formId, stepKey)}`;
    const listener = createPubSubClient(env.REDIS_URL!, () => {});
    let published = 0;
    listener.on('pmessage', () => published++);
    await listener.psubscribe(channel);
    const onA = await openLiveClient(a!.url, tokens[0]!, formId, stepKey, { label: 'principal on A' });
    let onB: LiveClient | undefined;
    try {
      await pause(300);
      const afterLoad = published;
      for (const word of ['one', 'two', 'three']) {
        writeAnswers(onA.doc, counseling, { [textId]: `Typed on A alone: ${word}` });
        await pause(100);
      }
      await pause(300);
      expect(published, 'edits of a document open only on A are not published').toBe(afterLoad);

      onB = await openLiveClient(b!.url, tokens[2]!, formId, stepKey, { label: 'ap on B' });
      await waitFor('B to receive what A typed alone', () => onB!.answers()[textId] === 'Typed on A alone: three');
      writeAnswers(onA.doc, counseling, { [textId]: 'Typed on A with B open' });
      await waitFor('B to receive the next edit on A', () => onB!.answers()[textId] === 'Typed on A with B open');
      writeAnswers(onB.doc, counseling, { [textId]: 'Typed on B' });
      await waitFor('A to receive the edit on B', () => onA.answers()[textId] === 'Typed on B');
      expect(published).toBeGreaterThan(afterLoad);
    } finally {
      onA.destroy();
      onB?.destroy();
      listener.disconnect();
    }
  });

  it('a process killed with SIGKILL mid-session: its clients move to the survivor, nothing acknowledged is lost, offline edits merge', async () => {
    expect(editors).toHaveLength(CLIENTS);
    // Half the editors on A (the victim), half on B.
    for (const [index, editor] of editors.entries()) {
      const home = index % 2 === 0 ? a!.url : b!.url;
      if (editor.live.baseUrl !== home || !editor.live.isLive()) await editor.live.reconnect(home);
    }
    const onA = editors.filter((editor) => editor.live.baseUrl === a!.url);
    const onB = editors.filter((editor) => editor.live.baseUrl === b!.url);
    expect(onA.length).toBeGreaterThan(0);
    expect(onB.length).toBeGreaterThan(0);
    const append = (editor: Editor, questionId: string, marker: string) => {
      const text = textOf(editor.live.doc, questionId);
      text.insert(text.length, ` ${marker}`);
    };

    // Edits everyone sees, and saves acknowledged by both processes.
    for (const editor of editors) append(editor, 'att_strategy', `[seen ${editor.label}]`);
    await waitForConvergence(
      editors.map((editor) => editor.live),
      30_000,
    );
    for (const editor of editors) {
      const { revisionCount } = await readStep(clientWithToken(b!, editor.token), formId, STEP);
      editor.baseRevision = revisionCount;
    }
    expect(await autosave(onA[0]!, a!)).toBe(200);
    expect(await autosave(onB[0]!, b!)).toBe(200);

    // A's clients type and A dies before anyone may have seen it.
    for (const editor of onA) append(editor, 'att_barriers', `[unsent ${editor.label}]`);
    await a!.stop('SIGKILL');
    expect(a!.child.signalCode).toBe('SIGKILL');

    // While A is down: A's clients keep typing offline; B's clients edit and save live.
    for (const editor of onA) {
      editor.live.disconnect();
      append(editor, 'att_sameDayOutreach', `[offline ${editor.label}]`);
      rowsOf(editor.live.doc, 'att_roles').push([tableRow(['Offline', editor.label, 'row', `${editor.label}@example.org`])]);
    }
    for (const editor of onB) append(editor, 'att_coordinatorName', `[B during outage ${editor.label}]`);
    await Promise.all(onB.map((editor) => editor.live.settled()));
    expect(await autosave(onB[onB.length - 1]!, b!)).toBe(200);

    // A's clients reconnect to the survivor with the same documents.
    for (const editor of onA) await editor.live.reconnect(b!.url);
    const converged = await waitForConvergence(
      editors.map((editor) => editor.live),
      30_000,
    );
    const all = JSON.stringify(converged);
    for (const editor of editors) expect(all).toContain(`[seen ${editor.label}]`);
    for (const editor of onA) {
      expect(converged.att_barriers as string).toContain(`[unsent ${editor.label}]`);
      expect(converged.att_sameDayOutreach as string).toContain(`[offline ${editor.label}]`);
      expect((converged.att_roles as TableAnswer).rows).toContainEqual(['Offline', editor.label, 'row', `${editor.label}@example.org`]);
    }
    for (const editor of onB) expect(converged.att_coordinatorName as string).toContain(`[B during outage ${editor.label}]`);

    await finalAutosave(onB[0]!, b!, converged);
    await expectNoAcknowledgedSaveLost();
    await waitFor(
      'the survivor to persist the converged document',
      async () => {
        const persisted = await persistedAnswers();
        return persisted !== undefined && JSON.stringify(sorted(persisted)) === JSON.stringify(sorted(converged));
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  it('an edit that reached the survivor only through Redis is persisted by it, though nobody edits there after the crash', async () => {
    // A replacement for the killed process; a step nobody has opened yet.
    c = await startServerProcess(env);
    const stepKey = 'counselingPlan';
    const writer = await openLiveClient(c.url, tokens[0]!, formId, stepKey, { label: 'writer on C' });
    const reader = await openLiveClient(b!.url, tokens[1]!, formId, stepKey, { label: 'reader on B' });
    try {
      const marker = 'Written on C, seen on B before C crashed.';
      writeAnswers(writer.doc, stepOf(stepKey).step, { csl_missionStatement: marker });
      await writer.settled();
      await waitFor('the reader on B to see the edit', () => reader.answers().csl_missionStatement === marker);
      // C dies within its store debounce; the writer is gone for good, the reader leaves: B unloads the document.
      await c.stop('SIGKILL');
      writer.destroy();
      reader.destroy();
      await waitFor('B to persist the edit it held', async () => (await persistedAnswers(stepKey))?.csl_missionStatement === marker, {
        timeoutMs: 10_000,
        intervalMs: 200,
      });
      // A new editor opening the step sees it.
      const next = await openLiveClient(b!.url, tokens[2]!, formId, stepKey, { label: 'next editor on B' });
      try {
        expect(next.answers().csl_missionStatement).toBe(marker);
      } finally {
        next.destroy();
      }
    } finally {
      writer.destroy();
      reader.destroy();
    }
  });

  it('a process stopped gracefully while its editor is still connected stores the last edits before it exits', async () => {
    const d = await startServerProcess(env);
    const stepKey = 'schoolCulture';
    const writer = await openLiveClient(d.url, tokens[0]!, formId, stepKey, { label: 'writer on D' });
    try {
      const marker = 'Typed a moment before the server stopped.';
      writeAnswers(writer.doc, stepOf(stepKey).step, { sc_studentVoice: marker });
      // Acknowledged by D, well within its store debounce (2 s, then the spread).
      await writer.settled();
      await d.stop('SIGTERM');
      expect((await persistedAnswers(stepKey))?.sc_studentVoice).toBe(marker);
    } finally {
      writer.destroy();
      await d.stop();
    }
  });
});
