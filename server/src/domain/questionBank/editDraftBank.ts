import { desc, eq } from 'drizzle-orm';
import { questionBankSchema, type QuestionBank } from '@csp/shared';
import type { Services } from '../../services.ts';
import { questionBankVersions } from '../../storage/schema.ts';
import type { Database } from '../../storage/database.ts';
import { invalidInput, notFound } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';

export type DraftSteps = QuestionBank['steps'];

/** The draft's row, cloned from the published version when there is none yet. Inside a transaction. */
export async function draftRow(tx: Database) {
  const [draft] = await tx.select().from(questionBankVersions).where(eq(questionBankVersions.status, 'draft')).for('update');
  if (draft) return draft;
  const [published] = await tx.select().from(questionBankVersions).where(eq(questionBankVersions.status, 'published'));
  const [latest] = await tx.select({ version: questionBankVersions.version }).from(questionBankVersions).orderBy(desc(questionBankVersions.version)).limit(1);
  const [created] = await tx
    .insert(questionBankVersions)
    .values({ version: (latest?.version ?? 0) + 1, status: 'draft', steps: structuredClone(published?.steps ?? []) })
    .returning();
  return created!;
}

/**
 * Applies one edit to the draft bank: the whole draft is validated afterwards (unique ids,
 * well-formed questions), so an edit that would break it is a 400 and changes nothing.
 */
export async function editDraftBank(
  services: Services,
  caller: Caller,
  action: string,
  edit: (steps: DraftSteps) => Record<string, unknown>,
): Promise<QuestionBank> {
  return services.storage.db.transaction(async (tx) => {
    const draft = await draftRow(tx);
    const steps = structuredClone(draft.steps);
    const summary = edit(steps);
    const checked = questionBankSchema.safeParse({ version: draft.version, steps });
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw invalidInput(`The draft would be invalid: ${issue.path.join('.')} ${issue.message}`.trim());
    }
    await tx.update(questionBankVersions).set({ steps, updatedAt: new Date() }).where(eq(questionBankVersions.version, draft.version));
    await recordAudit(tx, caller, { action: `questionBank.${action}`, targetType: 'questionBank', targetId: String(draft.version), summary });
    return { version: draft.version, steps };
  });
}

export function findStep(steps: DraftSteps, stepKey: string) {
  const step = steps.find((candidate) => candidate.key === stepKey);
  if (!step) throw notFound(`No step ${stepKey} in the draft`);
  return step;
}

export function findQuestion(steps: DraftSteps, questionId: string) {
  for (const step of steps) {
    const question = step.questions.find((candidate) => candidate.id === questionId);
    if (question) return { step, question };
  }
  throw notFound(`No question ${questionId} in the draft`);
}
