import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import type { Storage } from './database.ts';
import { openTestStorage } from '../testing/testDatabase.ts';
import { newId } from './ids.ts';
import { plans, planSteps } from './schema.ts';
import { writeStep, type StepWrite } from './stepWriteBatch.ts';

let storage: Storage;
let formId: string;

beforeAll(async () => {
  storage = await openTestStorage();
  formId = newId();
  await storage.db.insert(plans).values({ id: formId, schoolName: 'PS 12', schoolYear: '2026-2027' });
  await storage.db.insert(planSteps).values(['a', 'b', 'c', 'd', 'e'].map((stepKey) => ({ formId, stepKey })));
  // Step c moved on since its writer read it.
  await storage.db
    .update(planSteps)
    .set({ revisionCount: 2 })
    .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, 'c')));
});
afterAll(() => storage?.close());

const write = (stepKey: string, dirty: Record<string, unknown>, expected = 0): StepWrite => ({
  formId,
  stepKey,
  expected,
  revision: expected + 1,
  dirty,
  fieldRevisions: Object.fromEntries(Object.keys(dirty).map((id) => [id, expected + 1])),
  fieldChangedAt: Object.fromEntries(Object.keys(dirty).map((id) => [id, Date.now()])),
  completed: false,
  at: new Date(),
  updatedBy: null,
  documentName: `${formId}:${stepKey}`,
  access: null,
});

async function rowOf(stepKey: string) {
  const [row] = await storage.db
    .select({ data: planSteps.data, revisionCount: planSteps.revisionCount, transaction: sql<string>`${planSteps}.xmin::text` })
    .from(planSteps)
    .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, stepKey)));
  return row!;
}

describe('step write batches', () => {
  it('writes issued together commit together, each guarded and answered on its own', async () => {
    const outcomes = await Promise.all([
      writeStep(storage.db, write('a', { q1: 'first for a' })),
      writeStep(storage.db, write('b', { q1: 'for b' })),
      // Read at revision 0, but the row is at 2: another write came first.
      writeStep(storage.db, write('c', { q1: 'stale' })),
      // A second write of step a from the same revision: only one of the two can be written.
      writeStep(storage.db, write('a', { q1: 'second for a' })),
    ]);
    expect(outcomes[1]).toEqual({ hasDocument: false });
    expect(outcomes[2]).toBeNull();
    expect(outcomes.filter((outcome, index) => index !== 1 && outcome !== null)).toHaveLength(1);

    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map(rowOf));
    expect(a!.revisionCount).toBe(1);
    expect(a!.data).toEqual({ q1: outcomes[0] ? 'first for a' : 'second for a' });
    expect(b).toMatchObject({ revisionCount: 1, data: { q1: 'for b' } });
    expect(c).toMatchObject({ revisionCount: 2, data: {} });
    // One statement: both rows carry the same writing transaction.
    expect(a!.transaction).toBe(b!.transaction);
  });

  it('writes made one after another are different statements', async () => {
    expect(await writeStep(storage.db, write('d', { q1: 'd' }))).toEqual({ hasDocument: false });
    expect(await writeStep(storage.db, write('e', { q1: 'e' }))).toEqual({ hasDocument: false });
    const [d, e] = await Promise.all(['d', 'e'].map(rowOf));
    expect(d!.transaction).not.toBe(e!.transaction);
  });

  it('inside a transaction, a write runs on the transaction at once', async () => {
    await storage.db.transaction(async (tx) => {
      expect(await writeStep(tx, write('d', { q2: 'in a transaction' }, 1))).toEqual({ hasDocument: false });
      const [row] = await tx
        .select()
        .from(planSteps)
        .where(and(eq(planSteps.formId, formId), eq(planSteps.stepKey, 'd')));
      expect(row).toMatchObject({ revisionCount: 2, data: { q1: 'd', q2: 'in a transaction' } });
    });
  });
});
