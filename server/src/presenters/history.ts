import type { AnswerRevision, PlanVersion, PlanVersionSummary } from '@csp/shared/api/history';
import type { AnswerRevisionRow, PlanVersionRow } from '../storage/rows.ts';

/** A revision with its authors named (someone since deleted reads "A former user"). */
export function presentRevision(revision: AnswerRevisionRow, names: Map<string, string>): AnswerRevision {
  return {
    _id: revision.id,
    stepKey: revision.stepKey,
    questionId: revision.questionId,
    kind: revision.kind,
    authors: revision.authorIds.map((id) => ({ id, name: names.get(id) ?? 'A former user' })),
    before: revision.before ?? null,
    after: revision.after ?? null,
    restoredFromId: revision.restoredFromId,
    startedAt: revision.startedAt.toISOString(),
    updatedAt: revision.updatedAt.toISOString(),
  };
}

export function presentVersionSummary(version: Pick<PlanVersionRow, 'id' | 'kind' | 'actorName' | 'comment' | 'createdAt'>): PlanVersionSummary {
  return { _id: version.id, kind: version.kind, actorName: version.actorName, comment: version.comment, createdAt: version.createdAt.toISOString() };
}

/** A version with the steps the caller may read. */
export function presentVersion(version: PlanVersionRow, readsStep: (stepKey: string) => boolean): PlanVersion {
  return {
    ...presentVersionSummary(version),
    steps: Object.fromEntries(Object.entries(version.steps).filter(([stepKey]) => readsStep(stepKey))),
    attestation: version.attestation ?? null,
  };
}
