import { collabDocumentName, type Step, type StepAnswers } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import type { WriteOrigin, WrittenAnswers } from '../events.ts';
import type { Database } from '../../storage/database.ts';
import { writeStep, type AccessGuard } from '../../storage/stepWriteBatch.ts';
import type { StepRow, UserRow } from '../../storage/rows.ts';

/** The row as the write left it, what the changed answers held before it, and whether the step's live document was ever opened. */
export type WrittenStep = StepRow & { lastUpdated: Date; hasDocument: boolean; previous: StepAnswers };

/**
 * Writes changed answers of one step in one statement guarded by the revision that was read and,
 * given `access`, by the caller's access being as it was read: merged into the stored answers, each
 * stamped with the new revision and change time. Returns null when another write (or a change of
 * the caller's access) got there first.
 */
export async function writeStepAnswers(
  db: Database,
  row: StepRow,
  dirty: StepAnswers,
  completed: boolean,
  updatedBy: string | null,
  access: AccessGuard | null = null,
): Promise<WrittenStep | null> {
  const revision = row.revisionCount + 1;
  // Strictly increasing per step, so a client's lastUpdated names exactly one revision.
  const at = Math.max(Date.now(), (row.lastUpdated?.getTime() ?? 0) + 1);
  const fieldRevisions = Object.fromEntries(Object.keys(dirty).map((id) => [id, revision]));
  const fieldChangedAt = Object.fromEntries(Object.keys(dirty).map((id) => [id, at]));
  const written = await writeStep(db, {
    formId: row.formId,
    stepKey: row.stepKey,
    expected: row.revisionCount,
    revision,
    dirty,
    fieldRevisions,
    fieldChangedAt,
    completed,
    at: new Date(at),
    updatedBy,
    documentName: collabDocumentName(row.formId, row.stepKey),
    access,
  });
  if (!written) return null;
  // What the statement stored: JSONB's `||` replaces top-level keys as these spreads do.
  return {
    ...row,
    data: { ...row.data, ...dirty },
    fieldRevisions: { ...row.fieldRevisions, ...fieldRevisions },
    fieldChangedAt: { ...row.fieldChangedAt, ...fieldChangedAt },
    completed,
    revisionCount: revision,
    lastUpdated: new Date(at),
    updatedBy,
    hasDocument: written.hasDocument,
    previous: Object.fromEntries(Object.keys(dirty).map((id) => [id, row.data[id] ?? null])),
  };
}

/**
 * After a committed write: tells whoever listens (the plan's room; the step's live document, when
 * one was ever opened, otherwise it is seeded from the stored answers on first open).
 */
export function announceStepWrite(
  services: Pick<DomainServices, 'events'>,
  formId: string,
  step: Step,
  by: Pick<UserRow, 'id' | 'name'>,
  dirty: StepAnswers,
  completed: boolean,
  written: WrittenStep,
  { origin }: { origin?: WriteOrigin | undefined } = {},
): void {
  void services.events.publish({
    type: 'step.saved',
    formId,
    by: { id: by.id, name: by.name },
    write: writtenAnswers(step, dirty, completed, written),
    origin,
  });
}

/** The event's account of a committed write. */
export const writtenAnswers = (step: Step, dirty: StepAnswers, completed: boolean, written: WrittenStep): WrittenAnswers => ({
  step,
  answers: dirty,
  previous: written.previous,
  completed,
  revisionCount: written.revisionCount,
  lastUpdated: written.lastUpdated,
  hasDocument: written.hasDocument,
});
