import { collabDocumentName, type Step, type StepAnswers } from '@csp/shared';
import type { Services } from '../../services.ts';
import type { Database } from '../../storage/database.ts';
import { preparedQueries } from '../../storage/preparedQueries.ts';
import type { StepRow, UserRow } from '../../storage/rows.ts';

export interface WrittenStep {
  data: StepAnswers;
  revisionCount: number;
  lastUpdated: Date | null;
  /** Whether the step's live document was ever opened. */
  hasDocument: boolean;
}

/**
 * Writes changed answers of one step in one statement guarded by the revision that was read:
 * merged into the stored answers, each stamped with the new revision and change time. Returns
 * null when another write got there first.
 */
export async function writeStepAnswers(
  db: Database,
  row: StepRow,
  dirty: StepAnswers,
  completed: boolean,
  updatedBy: string | null,
): Promise<WrittenStep | null> {
  const revision = row.revisionCount + 1;
  // Strictly increasing per step, so a client's lastUpdated names exactly one revision.
  const at = Math.max(Date.now(), (row.lastUpdated?.getTime() ?? 0) + 1);
  const fieldRevisions = Object.fromEntries(Object.keys(dirty).map((id) => [id, revision]));
  const fieldChangedAt = Object.fromEntries(Object.keys(dirty).map((id) => [id, at]));
  const [written] = await preparedQueries(db).writeStep.execute({
    dirty: JSON.stringify(dirty),
    fieldRevisions: JSON.stringify(fieldRevisions),
    fieldChangedAt: JSON.stringify(fieldChangedAt),
    completed,
    revision,
    at: new Date(at).toISOString(),
    updatedBy,
    formId: row.formId,
    stepKey: row.stepKey,
    expected: row.revisionCount,
    documentName: collabDocumentName(row.formId, row.stepKey),
  });
  if (!written) return null;
  // What the statement stored: a JSONB `||` replaces top-level keys as this spread does.
  return { data: { ...row.data, ...dirty }, revisionCount: revision, lastUpdated: new Date(at), hasDocument: written.hasDocument };
}

/**
 * After a committed write: tells the plan's room, and brings the answers into the step's live
 * document (when one was ever opened; otherwise it is seeded from the stored answers on first open).
 */
export function announceStepWrite(
  services: Services,
  formId: string,
  step: Step,
  by: Pick<UserRow, 'id' | 'name'>,
  dirty: StepAnswers,
  completed: boolean,
  written: WrittenStep,
  savedLive?: boolean,
): void {
  services.events.toPlan(formId, 'step:saved', {
    stepKey: step.key,
    revisionCount: written.revisionCount,
    lastUpdated: written.lastUpdated?.toISOString() ?? null,
    by: { userId: by.id, name: by.name },
  });
  if (written.hasDocument) services.liveDocuments.applySavedAnswers({ formId, step, answers: dirty, completed, savedBy: by.id, savedLive });
}
