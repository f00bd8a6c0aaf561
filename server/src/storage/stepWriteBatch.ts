import type DataLoader from 'dataloader';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { windowBatcher } from '../batching.ts';
import type { Database } from './database.ts';
import { isDeadlock } from './errors.ts';
import { preparedQueries } from './preparedQueries.ts';
import type { AccessVersions } from './rows.ts';

/** Whose access a write re-checks, and the row versions it was decided on (`AccessVersions`). */
export interface AccessGuard {
  userId: string;
  versions: AccessVersions;
}

/** One revision-guarded write of a step's changed answers (`csp_write_steps`). */
export interface StepWrite {
  formId: string;
  stepKey: string;
  /** The revision the write was decided on; the write happens only while the row still has it. */
  expected: number;
  revision: number;
  dirty: Record<string, unknown>;
  fieldRevisions: Record<string, number>;
  fieldChangedAt: Record<string, number>;
  completed: boolean;
  at: Date;
  updatedBy: string | null;
  documentName: string;
  /** The caller and the row versions its access was decided on; null for writes made under the rows' locks. */
  access: AccessGuard | null;
}

/** A write that went through; null: another write (or a change of the caller's access) came first. */
export type StepWriteOutcome = { hasDocument: boolean } | null;

/** Writes at most this many steps in one statement. */
const BATCH_MAX = 64;

async function writeAll(db: Database, batch: readonly StepWrite[]): Promise<StepWriteOutcome[]> {
  const writes = batch.map((write, ordinal) => ({
    ordinal,
    form_id: write.formId,
    step_key: write.stepKey,
    expected: write.expected,
    dirty: write.dirty,
    field_revisions: write.fieldRevisions,
    field_changed_at: write.fieldChangedAt,
    completed: write.completed,
    revision: write.revision,
    at: write.at.toISOString(),
    updated_by: write.updatedBy,
    document_name: write.documentName,
    user_id: write.access?.userId ?? null,
    plan_version: write.access?.versions.plan ?? null,
    share_version: write.access?.versions.share ?? null,
    year_version: write.access?.versions.year ?? null,
  }));
  const rows = await preparedQueries(db).writeSteps.execute({ writes: JSON.stringify(writes) });
  const outcomes: StepWriteOutcome[] = batch.map(() => null);
  for (const row of rows) outcomes[row.ordinal] = { hasDocument: row.hasDocument };
  return outcomes;
}

/**
 * Step writes issued within one batch window go to PostgreSQL as one statement: one round trip and
 * one commit for all of them, where each used to cost its own. Each write keeps its own guard and
 * learns its own outcome.
 */
function batchOf(db: Database): DataLoader<StepWrite, StepWriteOutcome> {
  return windowBatcher<StepWrite, StepWriteOutcome>(async (batch) => {
    try {
      return await writeAll(db, batch);
    } catch (error) {
      // Two batches that wrote the same steps in opposite orders: PostgreSQL rolled one back, and
      // its writes are decided again on a fresh read, as after any write that came first.
      if (isDeadlock(error)) return batch.map(() => null);
      throw error;
    }
  }, BATCH_MAX);
}

const batches = new WeakMap<Database, DataLoader<StepWrite, StepWriteOutcome>>();

/** Writes one step; outside a transaction, together with the other writes of its batch window. */
export function writeStep(db: Database, write: StepWrite): Promise<StepWriteOutcome> {
  const inTransaction: boolean = db instanceof PgTransaction;
  // A transaction's statements run one after another on its connection: nothing to batch, and a
  // deadlock there must abort the transaction rather than be retried inside it.
  if (inTransaction) return writeAll(db, [write]).then(([outcome]) => outcome ?? null);
  let batch = batches.get(db);
  if (!batch) batches.set(db, (batch = batchOf(db)));
  return batch.load(write);
}
