import { and, eq } from 'drizzle-orm';
import * as Y from 'yjs';
import { seedDocumentState, writeAnswers, writeCompleted, type Step, type StepAnswers } from '@csp/shared';
import type { Database } from '../storage/database.ts';
import { collabDocuments, planSteps } from '../storage/schema.ts';

const stepRow = (db: Database, formId: string, stepKey: string) =>
  db
    .select({ data: planSteps.data, completed: planSteps.completed, revisionCount: planSteps.revisionCount, fieldRevisions: planSteps.fieldRevisions })
    .from(planSteps)
    .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, stepKey)))
    .limit(1)
    .then(([row]) => row);

/**
 * Loads a step document into `doc`: its stored Y.js state, or on first open a state seeded from
 * the stored answers. Two processes opening a new document at once agree on one seed (the first
 * insert wins), so seeded text is never doubled; a save that lands while the seed is written
 * (and so found no document to update) is applied afterwards.
 */
export async function loadDocumentInto(db: Database, doc: Y.Doc, name: string, formId: string, step: Step): Promise<void> {
  const [stored] = await db.select({ state: collabDocuments.state }).from(collabDocuments).where(eq(collabDocuments.name, name)).limit(1);
  if (stored) return Y.applyUpdate(doc, stored.state);
  const seededFrom = await stepRow(db, formId, step.key);
  const seed = seedDocumentState(step, seededFrom?.data ?? {}, seededFrom?.completed ?? false);
  const [inserted] = await db.insert(collabDocuments).values({ name, formId, state: seed }).onConflictDoNothing().returning({ state: collabDocuments.state });
  if (!inserted) {
    const [winner] = await db.select({ state: collabDocuments.state }).from(collabDocuments).where(eq(collabDocuments.name, name)).limit(1);
    return Y.applyUpdate(doc, winner!.state);
  }
  Y.applyUpdate(doc, seed);
  const now = await stepRow(db, formId, step.key);
  if (!now || now.revisionCount === (seededFrom?.revisionCount ?? 0)) return;
  const since = seededFrom?.revisionCount ?? 0;
  const changed: StepAnswers = Object.fromEntries(
    Object.entries(now.fieldRevisions)
      .filter(([, revision]) => revision > since)
      .map(([questionId]) => [questionId, now.data[questionId] ?? null]),
  );
  writeAnswers(doc, step, changed);
  writeCompleted(doc, now.completed);
}

/**
 * Stores a document's state merged with what is stored (another process may have written
 * updates this one has not seen), under the row's lock; an unchanged state is not written.
 */
export async function storeDocumentState(db: Database, name: string, formId: string, update: Uint8Array): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [stored] = await tx.select({ state: collabDocuments.state }).from(collabDocuments).where(eq(collabDocuments.name, name)).for('update');
    if (!stored) {
      await tx.insert(collabDocuments).values({ name, formId, state: update }).onConflictDoNothing();
      return true;
    }
    const merged = new Y.Doc();
    Y.applyUpdate(merged, stored.state);
    Y.applyUpdate(merged, update);
    const state = Y.encodeStateAsUpdate(merged);
    merged.destroy();
    if (Buffer.from(state).equals(Buffer.from(stored.state))) return false;
    await tx.update(collabDocuments).set({ state, updatedAt: new Date() }).where(eq(collabDocuments.name, name));
    return true;
  });
}
