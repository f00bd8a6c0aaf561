import { and, eq, sql } from 'drizzle-orm';
import * as Y from 'yjs';
import { seedDocumentState, type Step } from '@csp/shared';
import type { Database } from '../storage/database.ts';
import { collabDocuments, planSteps } from '../storage/schema.ts';

/**
 * The stored Y.js state of a step document; on first open, a state seeded from the stored answers.
 * Two processes opening a new document at once agree on one seed (the first insert wins), so
 * the seeded text is never doubled.
 */
export async function loadDocumentState(db: Database, name: string, formId: string, step: Step): Promise<Uint8Array> {
  const [stored] = await db.select({ state: collabDocuments.state }).from(collabDocuments).where(eq(collabDocuments.name, name)).limit(1);
  if (stored) return stored.state;
  const [row] = await db
    .select({ data: planSteps.data, completed: planSteps.completed })
    .from(planSteps)
    .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, step.key)))
    .limit(1);
  const seed = seedDocumentState(step, row?.data ?? {}, row?.completed ?? false);
  const [inserted] = await db
    .insert(collabDocuments)
    .values({ name, formId, state: seed })
    .onConflictDoNothing()
    .returning({ state: collabDocuments.state });
  if (inserted) return inserted.state;
  const [winner] = await db.select({ state: collabDocuments.state }).from(collabDocuments).where(eq(collabDocuments.name, name)).limit(1);
  return winner!.state;
}

/** Whether a document was ever opened (has a stored state). */
export async function hasDocumentState(db: Database, name: string): Promise<boolean> {
  const [row] = await db.select({ one: sql<number>`1` }).from(collabDocuments).where(eq(collabDocuments.name, name)).limit(1);
  return row !== undefined;
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
