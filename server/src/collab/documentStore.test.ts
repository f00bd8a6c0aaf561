import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as Y from 'yjs';
import { collabDocumentName, readAnswers, type Step, type StepAnswers } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { Storage } from '../storage/database.ts';
import { collabDocuments, collabUpdates, plans, planSteps } from '../storage/schema.ts';
import { newId } from '../storage/ids.ts';
import { openTestStorage } from '../testing/testDatabase.ts';
import { DocumentStore } from './documentStore.ts';
import { WriteAhead } from './writeAhead.ts';
import { createLogger } from '../logger.ts';
import { pino } from 'pino';

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

  describe('write-ahead', () => {
    const logger = createLogger('silent');
    const marksOf = (doc: Y.Doc) => [...doc.getMap('marks').keys()].sort();
    const rowsOf = (name: string) => storage.db.select({ id: collabUpdates.id }).from(collabUpdates).where(eq(collabUpdates.name, name));
    /** A process whose document appends each of its updates, as the persistence extension does. */
    async function liveProcess(document: { formId: string; name: string }) {
      const server = processOn(document);
      const writeAhead = new WriteAhead(storage.db, logger);
      const doc = new Y.Doc();
      writeAhead.adopt(doc, await server.store.load(doc, document.name, document.formId, step));
      // What came through Redis is appended by the process it came from.
      doc.on('update', (update: Uint8Array, origin: unknown) => origin !== 'redis' && writeAhead.append(doc, document.name, update));
      return {
        doc,
        writeAhead,
        mark: (key: string) => doc.getMap('marks').set(key, true),
        /** As a store does: claim, encode, write, compact. */
        async store() {
          const compact = await writeAhead.claim(doc);
          await server.store.store(document.name, document.formId, doc, compact);
          writeAhead.compacted(doc, compact);
        },
      };
    }

    it('a store deletes the rows it stored and keeps the ones appended after it encoded the state, which the next load applies', async () => {
      const document = await newDocument();
      const a = await liveProcess(document);
      a.mark('a1');
      a.mark('a2');
      const stored = await a.writeAhead.claim(a.doc);
      expect(stored).toHaveLength(2);
      // The state is encoded here; what is typed while it is written is not in it.
      const storing = processOn(document).store.store(document.name, document.formId, a.doc, stored);
      a.mark('a3');
      await storing;
      await a.writeAhead.claim(a.doc);
      expect((await rowsOf(document.name)).map((row) => row.id)).not.toContain(stored[0]);
      expect(await rowsOf(document.name)).toHaveLength(1);
      expect(await storedMarks(document.name)).toEqual(['a1', 'a2']);

      // The process dies here. The next load applies the row left, and compacts it with its store.
      const b = await liveProcess(document);
      expect(marksOf(b.doc)).toEqual(['a1', 'a2', 'a3']);
      await b.store();
      expect(await rowsOf(document.name)).toHaveLength(0);
      expect(await storedMarks(document.name)).toEqual(['a1', 'a2', 'a3']);
    });

    it('a store leaves the rows another process appended, even ones whose updates it holds', async () => {
      const document = await newDocument();
      const [a, b] = [await liveProcess(document), await liveProcess(document)];
      a.mark('a1');
      b.mark('b1');
      await b.writeAhead.claim(b.doc);
      // B's update reaches A (as through Redis): A does not append it again, and does not delete B's row.
      Y.applyUpdate(a.doc, Y.encodeStateAsUpdate(b.doc), 'redis');
      await a.store();
      expect(await rowsOf(document.name)).toHaveLength(1);
      await b.store();
      expect(await rowsOf(document.name)).toHaveLength(0);
      expect(await storedMarks(document.name)).toEqual(['a1', 'b1']);
    });

    it('a document stored only as its seed gets its rows on load', async () => {
      const document = await newDocument();
      const a = await liveProcess(document);
      a.mark('typed');
      await a.writeAhead.claim(a.doc);
      // Nothing stored but the seed: the process died within its debounce.
      const b = await liveProcess(document);
      expect(marksOf(b.doc)).toEqual(['typed']);
    });

    it('an append the database refuses is logged, and nothing waits or fails for it', async () => {
      const gone = await openTestStorage();
      await gone.close();
      const warnings: string[] = [];
      const writeAhead = new WriteAhead(gone.db, pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) }));
      const doc = new Y.Doc();
      doc.on('update', (update: Uint8Array) => writeAhead.append(doc, 'plan:0:step:gone', update));
      doc.getMap('marks').set('typed', true);
      expect(await writeAhead.claim(doc)).toEqual([]);
      expect(warnings).toEqual([expect.stringContaining('not appended to the write-ahead')]);
    });
  });
});
