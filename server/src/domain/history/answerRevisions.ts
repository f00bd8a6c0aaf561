import type DataLoader from 'dataloader';
import { windowBatcher } from '../../batching.ts';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { isBlankAnswer, sameAnswer, type Answer } from '@csp/shared';
import type { Database } from '../../storage/database.ts';
import { answerRevisions, auditLogs, planSteps, planVersions, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import type { EventSubscriber } from '../../events/dispatcher.ts';
import type { EventOf } from '../events.ts';
import { HistoryQueue, type AnswerChange, type StepWriteHistory } from './historyQueue.ts';

/** A pause longer than this ends a person's burst on an answer: the next change starts a new revision. */
const BURST_PAUSE_MS = 5 * 60_000;
/** A burst that goes on longer than this is cut, so a long day's writing still shows its stages. */
const BURST_LONGEST_MS = 30 * 60_000;

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
  let changes = write.changes.filter((change) => !same(change.before, change.after));
  if (changes.length === 0) return;
  const extended = await extendBursts(db, write, changes);
  changes = changes.filter((change) => !extended.has(change.questionId));
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
 * The common case without the transaction: a person's next autosave of an answer whose latest
 * revision is theirs, made by the step's write just before this one, within the burst's times and
 * with no version taken since it began. It extends that revision (the rules above, with no one
 * joining, so no audit record), in one statement and one commit shared by the writes recorded
 * within a batch window (a transaction of five statements per autosave cost more than the save).
 * Returns the questions it extended; the others take the transaction above. Requiring the step's
 * previous write keeps it from racing another write's recording: any write in between sends this
 * one the long way, under the step row's lock.
 */
async function extendBursts(db: Database, write: StepWriteHistory, changes: AnswerChange[]): Promise<Set<string>> {
  const candidates = write.kind === 'edit' && write.stepRevision > 1 ? changes.filter((change) => change.authorIds.length > 0) : [];
  if (candidates.length === 0) return new Set();
  // A failed batch extended nothing: its writes take the long way.
  return extenderOf(db)
    .load({ write, changes: candidates })
    .catch(() => new Set<string>());
}

interface Extension {
  write: StepWriteHistory;
  changes: AnswerChange[];
}

const extenders = new WeakMap<Database, DataLoader<Extension, Set<string>>>();

/**
 * History is written after the save has answered and nobody waits for it, so its batches stay open
 * longer than the saves' own (1 ms): at 333 autosaves a second a batch holds about seven, not one.
 * Batches go out in the order their writes were recorded.
 */
const EXTEND_WINDOW_MS = 20;

/** The writes recorded within one batch window share the statement. */
function extenderOf(db: Database): DataLoader<Extension, Set<string>> {
  let extender = extenders.get(db);
  if (!extender) extenders.set(db, (extender = windowBatcher((batch: readonly Extension[]) => extendBatch(db, batch), 500, EXTEND_WINDOW_MS)));
  return extender;
}

const extendStatements = new WeakMap<Database, ReturnType<typeof buildExtendStatement>>();

function extendStatement(db: Database): ReturnType<typeof buildExtendStatement> {
  let statement = extendStatements.get(db);
  if (!statement) extendStatements.set(db, (statement = buildExtendStatement(db)));
  return statement;
}

/**
 * The batch's extensions as one prepared statement (planned once, not per autosave). Each answer's
 * latest revision is found through its index (`lateral … limit 1`): a join on the written rows would
 * let the planner scan the whole table.
 */
function buildExtendStatement(db: Database) {
  const r = answerRevisions;
  return db
    .update(r)
    .set({ after: sql`c.after`, stepRevision: sql`c.step_revision`, updatedAt: sql`c.at` })
    .from(
      sql`jsonb_to_recordset(${sql.placeholder('rows')}::jsonb) as c(
        ordinal integer, form_id text, step_key text, question_id text, after jsonb, authors jsonb, step_revision integer, at timestamptz)
      cross join lateral (
        select l.id from ${r} l
        where l.form_id = c.form_id and l.step_key = c.step_key and l.question_id = c.question_id
        order by l.step_revision desc limit 1) latest`,
    )
    .where(
      sql`${r.id} = latest.id and ${r.stepRevision} = c.step_revision - 1 and ${r.kind} = 'edit'
        and ${r.updatedAt} > c.at - ${sql.raw(`'${BURST_PAUSE_MS} milliseconds'`)}::interval
        and ${r.startedAt} > c.at - ${sql.raw(`'${BURST_LONGEST_MS} milliseconds'`)}::interval
        and ${r.authorIds} @> c.authors
        and not exists (select 1 from ${planVersions} v where v.form_id = ${r.formId} and v.created_at >= ${r.startedAt})`,
    )
    .returning({ ordinal: sql<number>`c.ordinal`, id: r.id, question_id: r.questionId, before: r.before })
    .prepare('csp_extend_answer_bursts');
}

async function extendBatch(db: Database, batch: readonly Extension[]): Promise<Set<string>[]> {
  const rows = batch.flatMap(({ write, changes }, ordinal) =>
    changes.map((change) => ({
      ordinal,
      form_id: write.formId,
      step_key: write.stepKey,
      question_id: change.questionId,
      after: change.after,
      authors: change.authorIds,
      step_revision: write.stepRevision,
      at: write.at.toISOString(),
    })),
  );
  const updated = await extendStatement(db).execute({ rows: JSON.stringify(rows) });
  // A burst that ends where it began leaves nothing.
  const afterOf = (row: (typeof updated)[number]) => batch[row.ordinal]!.changes.find((change) => change.questionId === row.question_id)!.after;
  const undone = updated.filter((row) => same(row.before, afterOf(row)));
  if (undone.length)
    await db.delete(answerRevisions).where(
      inArray(
        answerRevisions.id,
        undone.map((row) => row.id),
      ),
    );
  const extended = batch.map(() => new Set<string>());
  for (const row of updated) extended[row.ordinal]!.add(row.question_id);
  return extended;
}

/**
 * Every committed step write reaches the answers' history, whichever door it came through: a save,
 * a live document's record (naming each person who typed in each answer), a restore or a copy.
 * After the commit: the answers stand whether or not their history could be written, and a failure
 * is logged.
 */
export function answerHistory(queue: HistoryQueue): EventSubscriber {
  return {
    name: 'answer history',
    afterCommit: {
      'step.saved': ({ formId, by, write, authors, origin }: EventOf<'step.saved'>) => {
        const changes = Object.entries(write.answers).map(([questionId, after]) => ({
          questionId,
          before: write.previous[questionId] ?? null,
          after: after ?? null,
          authorIds: authors?.[questionId]?.length ? authors[questionId] : by.id ? [by.id] : [],
        }));
        queue.add({
          formId,
          stepKey: write.step.key,
          stepRevision: write.revisionCount,
          at: write.lastUpdated,
          kind: origin?.kind ?? 'edit',
          restoredFromId: origin?.kind === 'restore' ? origin.revisionId : null,
          changes,
        });
      },
    },
  };
}
