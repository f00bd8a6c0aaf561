import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as Y from 'yjs';
import { collabDocumentName, readAnswers, type Step, type StepAnswers } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { openStorage, type Storage } from '../storage/database.ts';
import { collabDocuments, plans, planSteps } from '../storage/schema.ts';
import { newId } from '../storage/ids.ts';
import { createTestDatabase } from '../testing/testDatabase.ts';
import { DocumentStore } from './documentStore.ts';

let storage: Storage;
let drop: () => Promise<void>;
const step: Step = BUNDLED_BANK.steps.find((candidate) => candidate.questions.some((q) => q.type === 'textarea'))!;

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  storage = await openStorage({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
});
afterAll(async () => {
  await storage?.close();
  await drop?.();
});

/** A plan with one step row; returns its document's name and plan id. */
async function newDocument(answers: StepAnswers = {}) {
  const formId = newId();
  await storage.db.insert(plans).values({ id: formId, schoolName: `PS ${formId}`, schoolYear: '2026-2027' });
  await storage.db.insert(planSteps).values({ formId, stepKey: step.key, data: answers });
  return { formId, name: collabDocumentName(formId, step.key) };
}

/** Two server processes' views of the same document: each its own store and in-memory document. */
async function openIn(store: DocumentStore, name: string, formId: string) {
  const doc = new Y.Doc();
  await store.load(doc, name, formId, step);
  return doc;
}

const mark = (doc: Y.Doc, key: string) => doc.getMap('marks').set(key, true);

async function storedMarks(name: string): Promise<string[]> {
  const [row] = await storage.db.select({ state: collabDocuments.state }).from(collabDocuments).where(eq(collabDocuments.name, name));
  const doc = new Y.Doc();
  Y.applyUpdate(doc, row!.state);
  return [...doc.getMap('marks').keys()].sort();
}

describe('document store', () => {
  it('seeds a new document from the stored answers and keeps later stores', async () => {
    const question = step.questions.find((q) => q.type === 'textarea')!;
    const { formId, name } = await newDocument({ [question.id]: 'Seeded text' });
    const store = new DocumentStore(storage.db);
    const doc = await openIn(store, name, formId);
    expect(readAnswers(doc)[question.id]).toBe('Seeded text');
    mark(doc, 'first');
    expect(await store.store(name, formId, doc)).toBe(true);
    mark(doc, 'second');
    expect(await store.store(name, formId, doc)).toBe(true);
    expect(await storedMarks(name)).toEqual(['first', 'second']);
  });

  it('keeps what another process stored since this one last read or wrote the document', async () => {
    const { formId, name } = await newDocument();
    const [processA, processB] = [new DocumentStore(storage.db), new DocumentStore(storage.db)];
    const docA = await openIn(processA, name, formId);
    const docB = await openIn(processB, name, formId);
    mark(docA, 'a1');
    await processA.store(name, formId, docA);
    mark(docB, 'b1');
    await processB.store(name, formId, docB);
    expect(await storedMarks(name)).toEqual(['a1', 'b1']);
    // B's document lacked A's change, so B's next store still merges: A's change survives it.
    mark(docB, 'b2');
    await processB.store(name, formId, docB);
    expect(await storedMarks(name)).toEqual(['a1', 'b1', 'b2']);
  });

  it('writes without merging again once the document holds everything stored', async () => {
    const { formId, name } = await newDocument();
    const [processA, processB] = [new DocumentStore(storage.db), new DocumentStore(storage.db)];
    const docA = await openIn(processA, name, formId);
    const docB = await openIn(processB, name, formId);
    mark(docA, 'a1');
    await processA.store(name, formId, docA);
    // The processes share changes (as through Redis): B now holds A's change before it stores.
    Y.applyUpdate(docB, Y.encodeStateAsUpdate(docA));
    mark(docB, 'b1');
    await processB.store(name, formId, docB);
    mark(docB, 'b2');
    await processB.store(name, formId, docB);
    expect(await storedMarks(name)).toEqual(['a1', 'b1', 'b2']);
  });

  it('a document unloaded and loaded again reads the stored state afresh', async () => {
    const { formId, name } = await newDocument();
    const [processA, processB] = [new DocumentStore(storage.db), new DocumentStore(storage.db)];
    const docA = await openIn(processA, name, formId);
    mark(docA, 'a1');
    await processA.store(name, formId, docA);
    processA.forget(name);
    const docB = await openIn(processB, name, formId);
    mark(docB, 'b1');
    await processB.store(name, formId, docB);
    const reopened = await openIn(processA, name, formId);
    mark(reopened, 'a2');
    await processA.store(name, formId, reopened);
    expect(await storedMarks(name)).toEqual(['a1', 'a2', 'b1']);
  });
});
