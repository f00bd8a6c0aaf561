import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as Y from 'yjs';
import { collabDocumentName, readAnswers, type Step, type StepAnswers } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { Storage } from '../storage/database.ts';
import { collabDocuments, plans, planSteps } from '../storage/schema.ts';
import { newId } from '../storage/ids.ts';
import { openTestStorage } from '../testing/testDatabase.ts';
import { DocumentStore } from './documentStore.ts';

let storage: Storage;
const step: Step = BUNDLED_BANK.steps.find((candidate) => candidate.questions.some((q) => q.type === 'textarea'))!;

beforeAll(async () => {
  storage = await openTestStorage();
});
afterAll(() => storage?.close());

/** A plan with one step row; returns its document's name and plan id. */
async function newDocument(answers: StepAnswers = {}) {
  const formId = newId();
  await storage.db.insert(plans).values({ id: formId, schoolName: `PS ${formId}`, schoolYear: '2026-2027' });
  await storage.db.insert(planSteps).values({ formId, stepKey: step.key, data: answers });
  return { formId, name: collabDocumentName(formId, step.key) };
}

/** One server process's view of a document: its own store, each opened copy its own Y.Doc. */
function processOn({ formId, name }: { formId: string; name: string }) {
  const store = new DocumentStore(storage.db);
  return {
    store,
    async open() {
      const doc = new Y.Doc();
      await store.load(doc, name, formId, step);
      return doc;
    },
    /** Marks the document with `key` and stores it; returns whether the row was written. */
    edit(doc: Y.Doc, key: string) {
      doc.getMap('marks').set(key, true);
      return store.store(name, formId, doc);
    },
  };
}

async function storedMarks(name: string): Promise<string[]> {
  const [row] = await storage.db.select({ state: collabDocuments.state }).from(collabDocuments).where(eq(collabDocuments.name, name));
  const doc = new Y.Doc();
  Y.applyUpdate(doc, row!.state);
  return [...doc.getMap('marks').keys()].sort();
}

describe('document store', () => {
  it('seeds a new document from the stored answers and keeps later stores', async () => {
    const question = step.questions.find((q) => q.type === 'textarea')!;
    const document = await newDocument({ [question.id]: 'Seeded text' });
    const server = processOn(document);
    const doc = await server.open();
    expect(readAnswers(doc)[question.id]).toBe('Seeded text');
    expect(await server.edit(doc, 'first')).toBe(true);
    expect(await server.edit(doc, 'second')).toBe(true);
    expect(await storedMarks(document.name)).toEqual(['first', 'second']);
  });

  it('keeps what another process stored since this one last read or wrote the document', async () => {
    const document = await newDocument();
    const [processA, processB] = [processOn(document), processOn(document)];
    const [docA, docB] = [await processA.open(), await processB.open()];
    await processA.edit(docA, 'a1');
    await processB.edit(docB, 'b1');
    expect(await storedMarks(document.name)).toEqual(['a1', 'b1']);
    // B's document lacked A's change, so B's next store still merges: A's change survives it.
    await processB.edit(docB, 'b2');
    expect(await storedMarks(document.name)).toEqual(['a1', 'b1', 'b2']);
  });

  it('writes without merging again once the document holds everything stored', async () => {
    const document = await newDocument();
    const [processA, processB] = [processOn(document), processOn(document)];
    const [docA, docB] = [await processA.open(), await processB.open()];
    await processA.edit(docA, 'a1');
    // The processes share changes (as through Redis): B now holds A's change before it stores.
    Y.applyUpdate(docB, Y.encodeStateAsUpdate(docA));
    await processB.edit(docB, 'b1');
    await processB.edit(docB, 'b2');
    expect(await storedMarks(document.name)).toEqual(['a1', 'b1', 'b2']);
  });

  it('a document unloaded and loaded again reads the stored state afresh', async () => {
    const document = await newDocument();
    const [processA, processB] = [processOn(document), processOn(document)];
    await processA.edit(await processA.open(), 'a1');
    processA.store.forget(document.name);
    await processB.edit(await processB.open(), 'b1');
    await processA.edit(await processA.open(), 'a2');
    expect(await storedMarks(document.name)).toEqual(['a1', 'a2', 'b1']);
  });
});
