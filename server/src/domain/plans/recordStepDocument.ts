import { eq } from 'drizzle-orm';
import { isBlankAnswer, isStepComplete, sameAnswer, type Answer, type Step, type StepAnswers } from '@csp/shared';
import type { BaseDomainServices } from '../domainServices.ts';
import { preparedQueries } from '../../storage/preparedQueries.ts';
import { users } from '../../storage/schema.ts';
import { writeStepAnswers, writtenAnswers, type WrittenStep } from './writeStepAnswers.ts';
import { claimStepLock } from './stepLocks.ts';
import { clearAttestation } from './attestPlan.ts';

const MAX_ATTEMPTS = 100;

/** A blank answer and a missing one are the same record (an empty Y.Text is no answer). */
const same = (a: Answer | undefined, b: Answer | undefined) => sameAnswer(a, b) || (isBlankAnswer(a) && isBlankAnswer(b));

export interface StepDocumentRecord {
  formId: string;
  step: Step;
  /** The merged document's answers, as `readAnswers` reads them. */
  answers: StepAnswers;
  /** The document's own `completed` flag (set by a save that marked the step complete). */
  completed: boolean;
  /** Whose edits the document gained since it was last recorded; null when none came through this process. */
  writerId: string | null;
  /** By question, everyone whose edits it gained since (the answers' history names them all). */
  authors: Record<string, string[]>;
}

/**
 * Writes a step's record from its merged live document: every answer where the document and the
 * record differ, in one statement guarded by the revision it read (another write first: read again).
 *
 * This is the only way live editing reaches the record. A person's browser never sends its view of
 * a live document as answers, so a view that missed a colleague's keystrokes (a laptop back from a
 * dropped network, a stale tab) can never overwrite them: the record follows the document, and the
 * document merges everyone's edits character by character.
 *
 * The writer also takes (or keeps) the step lock, as a save does: outside writers get 423 while
 * someone edits the step live, and others see who is editing it.
 */
export async function recordStepDocument(services: BaseDomainServices, record: StepDocumentRecord): Promise<WrittenStep | null> {
  const { formId, step, answers, writerId } = record;
  const queries = preparedQueries(services.storage.db);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [row] = await queries.stepRow.execute({ formId, stepKey: step.key });
    // A plan deleted while its document was open, or a step added to the bank after the plan: nothing to record into.
    if (!row) return null;
    const dirty: StepAnswers = {};
    for (const question of step.questions) {
      if (!same(answers[question.id], row.data[question.id])) dirty[question.id] = answers[question.id] ?? null;
    }
    const completed = isStepComplete(step, { ...row.data, ...dirty }) || record.completed;
    if (Object.keys(dirty).length === 0 && completed === row.completed) return null;
    const written = await writeStepAnswers(services.storage.db, row, dirty, completed, writerId);
    if (!written) continue;
    // Answers changed after the principal attested: the plan is attested again before it is submitted.
    await clearAttestation(services.storage.db, formId);
    const [writer] = writerId
      ? await services.storage.db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, writerId)).limit(1)
      : [];
    const by = writer ?? { id: '', name: 'Someone' };
    if (writer) {
      const lock = await claimStepLock(services.kv, services.config.stepLockTtlMs, formId, step.key, writer).catch((error: unknown) => {
        services.logger.warn({ err: error }, 'step lock unavailable; the record was written without it');
        return null;
      });
      if (lock?.acquired && !lock.refreshed) await services.events.publish({ type: 'step.lockTaken', formId, lock: lock.lock });
    }
    const write = { ...writtenAnswers(step, dirty, completed, written), hasDocument: true };
    // The document already holds these answers: nothing is written back into it.
    await services.events.publish({ type: 'step.saved', formId, by, write, fromDocument: true, authors: record.authors });
    return written;
  }
  services.logger.warn({ formId, stepKey: step.key }, 'step record not written: too many writers at once; the next store tries again');
  return null;
}
