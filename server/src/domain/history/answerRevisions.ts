import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { isBlankAnswer, sameAnswer, type Answer } from '@csp/shared';
import type { RevisionKind } from '@csp/shared/api/history';
import type { Database } from '../../storage/database.ts';
import { answerRevisions, auditLogs, planSteps, planVersions, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import type { EventSubscriber } from '../../events/dispatcher.ts';
import type { EventOf } from '../events.ts';
import type { Logger } from '../../logger.ts';

/** A pause longer than this ends a person's burst on an answer: the next change starts a new revision. */
export const BURST_PAUSE_MS = 5 * 60_000;
/** A burst that goes on longer than this is cut, so a long day's writing still shows its stages. */
export const BURST_LONGEST_MS = 30 * 60_000;

/** One answer's change in one committed write. */
export interface AnswerChange {
  questionId: string;
  before: Answer | null;
  after: Answer | null;
  authorIds: string[];
}

export interface StepWriteHistory {
  formId: string;
  stepKey: string;
  /** The step revision the write made. */
  stepRevision: number;
  at: Date;
  kind: RevisionKind;
  restoredFromId: string | null;
  changes: AnswerChange[];
}

const same = (a: unknown, b: unknown) => sameAnswer(a as Answer, b as Answer) || (isBlankAnswer(a as Answer) && isBlankAnswer(b as Answer));

/**
 * Adds one committed step write to its answers' histories. A person's (or a few people's) burst of
 * edits on one answer is one revision: a change by the same people, soon after, with no version
 * taken meanwhile, extends the answer's latest revision (its `after`, its time, its authors); a
 * burst that ends where it began leaves nothing. Anything else starts a revision, and the audit log
 * gets a record for each person in it.
 *
 * Writes of one step are serialized here by the step row's lock, so two processes recording the
 * same answer at once take turns.
 */
export async function recordAnswerRevisions(db: Database, write: StepWriteHistory): Promise<void> {
  const changes = write.changes.filter((change) => !same(change.before, change.after));
  if (changes.length === 0) return;
  await db.transaction(async (tx) => {
    await tx
      .select({ formId: planSteps.formId })
      .from(planSteps)
      .where(and(eq(planSteps.formId, write.formId), eq(planSteps.stepKey, write.stepKey)))
      .for('update');
    // The latest revision of each changed answer, and when the plan's latest version was taken.
    const latestRows = await tx
      .selectDistinctOn([answerRevisions.questionId], {
        revision: answerRevisions,
        sealedAt: sql<string | null>`(select max(${planVersions.createdAt}) from ${planVersions} where ${planVersions.formId} = ${write.formId})`,
      })
      .from(answerRevisions)
      .where(
        and(
          eq(answerRevisions.formId, write.formId),
          eq(answerRevisions.stepKey, write.stepKey),
          inArray(
            answerRevisions.questionId,
            changes.map((change) => change.questionId),
          ),
        ),
      )
      .orderBy(answerRevisions.questionId, desc(answerRevisions.stepRevision));
    const latestOf = new Map(latestRows.map((row) => [row.revision.questionId, row]));
    const audited: { actorId: string; questionId: string; revisionId: string }[] = [];
    for (const change of changes) {
      const found = latestOf.get(change.questionId);
      const latest = found?.revision;
      const sealedAt = found?.sealedAt ? new Date(found.sealedAt) : null;
      const extends_ =
        latest !== undefined &&
        write.kind === 'edit' &&
        latest.kind === 'edit' &&
        latest.stepRevision < write.stepRevision &&
        write.at.getTime() - latest.updatedAt.getTime() < BURST_PAUSE_MS &&
        write.at.getTime() - latest.startedAt.getTime() < BURST_LONGEST_MS &&
        (!sealedAt || sealedAt < latest.startedAt) &&
        change.authorIds.some((id) => latest.authorIds.includes(id));
      if (latest && extends_) {
        if (same(latest.before, change.after)) {
          await tx.delete(answerRevisions).where(eq(answerRevisions.id, latest.id));
          continue;
        }
        const joined = change.authorIds.filter((id) => !latest.authorIds.includes(id));
        await tx
          .update(answerRevisions)
          .set({ after: change.after, stepRevision: write.stepRevision, updatedAt: write.at, authorIds: [...latest.authorIds, ...joined] })
          .where(eq(answerRevisions.id, latest.id));
        for (const actorId of joined) audited.push({ actorId, questionId: change.questionId, revisionId: latest.id });
        continue;
      }
      const id = newId();
      await tx.insert(answerRevisions).values({
        id,
        formId: write.formId,
        stepKey: write.stepKey,
        questionId: change.questionId,
        kind: write.kind,
        authorIds: change.authorIds,
        before: change.before,
        after: change.after,
        stepRevision: write.stepRevision,
        restoredFromId: write.restoredFromId,
        startedAt: write.at,
        updatedAt: write.at,
      });
      for (const actorId of change.authorIds) audited.push({ actorId, questionId: change.questionId, revisionId: id });
    }
    if (audited.length === 0) return;
    const emails = new Map(
      (
        await tx
          .select({ id: users.id, email: users.email })
          .from(users)
          .where(inArray(users.id, [...new Set(audited.map((entry) => entry.actorId))]))
      ).map((user) => [user.id, user.email]),
    );
    const action = write.kind === 'restore' ? 'answer.restored' : write.kind === 'copy' ? 'answer.copied' : 'answer.edited';
    // The audit log says who changed which answer; never what it says.
    await tx.insert(auditLogs).values(
      audited.map((entry) => ({
        id: newId(),
        actorId: entry.actorId,
        actorEmail: emails.get(entry.actorId) ?? null,
        action,
        targetType: 'plan',
        targetId: write.formId,
        summary: { stepKey: write.stepKey, questionId: entry.questionId, revisionId: entry.revisionId },
      })),
    );
  });
}

/**
 * Every committed step write reaches the answers' history, whichever door it came through: a save,
 * a live document's record (naming each person who typed in each answer), a restore or a copy.
 * After the commit: the answers stand whether or not their history could be written, and a failure
 * is logged.
 */
export function answerHistory(db: Database, logger: Logger): EventSubscriber {
  return {
    name: 'answer history',
    afterCommit: {
      'step.saved': async ({ formId, by, write, authors, origin }: EventOf<'step.saved'>) => {
        const changes = Object.entries(write.answers).map(([questionId, after]) => ({
          questionId,
          before: write.previous[questionId] ?? null,
          after: after ?? null,
          authorIds: authors?.[questionId]?.length ? authors[questionId] : by.id ? [by.id] : [],
        }));
        await recordAnswerRevisions(db, {
          formId,
          stepKey: write.step.key,
          stepRevision: write.revisionCount,
          at: write.lastUpdated,
          kind: origin?.kind ?? 'edit',
          restoredFromId: origin?.kind === 'restore' ? origin.revisionId : null,
          changes,
        }).catch((error: unknown) => logger.error({ err: error, formId, stepKey: write.step.key }, 'answer history not written'));
      },
    },
  };
}
