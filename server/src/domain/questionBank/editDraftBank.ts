import { randomBytes } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import { questionBankSchema, type Question, type QuestionBank } from '@csp/shared';
import type { z } from 'zod';
import type { addQuestionSchema, addStepSchema, updateQuestionSchema, updateStepSchema } from '@csp/shared/api/questionBankAdmin';
import type { DomainServices } from '../domainServices.ts';
import { questionBankVersions } from '../../storage/schema.ts';
import type { Database } from '../../storage/database.ts';
import { conflict, invalidInput, notFound } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import { describeBankChanges } from './describeBankChanges.ts';

export type DraftSteps = QuestionBank['steps'];

/** The draft's row, cloned from the published version when there is none yet. Inside a transaction. */
async function draftRow(tx: Database) {
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
async function editDraftBank(
  services: DomainServices,
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

function findStep(steps: DraftSteps, stepKey: string) {
  const step = steps.find((candidate) => candidate.key === stepKey);
  if (!step) throw notFound(`No step ${stepKey} in the draft`);
  return step;
}

function findQuestion(steps: DraftSteps, questionId: string) {
  for (const step of steps) {
    const question = step.questions.find((candidate) => candidate.id === questionId);
    if (question) return { step, question };
  }
  throw notFound(`No question ${questionId} in the draft`);
}

/** Changes a question's properties; `null` removes an optional one. */
export function updateDraftQuestion(services: DomainServices, caller: Caller, questionId: string, changes: z.output<typeof updateQuestionSchema>) {
  return editDraftBank(services, caller, 'question.update', (steps) => {
    const { question } = findQuestion(steps, questionId);
    const before = { ...question };
    for (const [key, value] of Object.entries(changes)) {
      if (value === null) delete (question as Record<string, unknown>)[key];
      else (question as Record<string, unknown>)[key] = value;
    }
    return { questionId, before, after: question };
  });
}

/** Adds a question with a new id, never reused: answers of removed questions keep theirs. */
export function addDraftQuestion(services: DomainServices, caller: Caller, { stepKey, position, question }: z.output<typeof addQuestionSchema>) {
  const id = `q_${randomBytes(6).toString('hex')}`;
  return editDraftBank(services, caller, 'question.add', (steps) => {
    const step = findStep(steps, stepKey);
    step.questions.splice(position ?? step.questions.length, 0, { id, ...question } as Question);
    return { stepKey, questionId: id };
  });
}

/** Deactivates a question (kept, with its answers, but no longer asked) or makes it active again. */
export function setDraftQuestionActive(services: DomainServices, caller: Caller, questionId: string, active: boolean) {
  return editDraftBank(services, caller, active ? 'question.activate' : 'question.deactivate', (steps) => {
    const { question } = findQuestion(steps, questionId);
    if (active) delete question.active;
    else question.active = false;
    return { questionId, active };
  });
}

export function addDraftStep(services: DomainServices, caller: Caller, { key, title, intro, position }: z.output<typeof addStepSchema>) {
  return editDraftBank(services, caller, 'step.add', (steps) => {
    if (steps.some((step) => step.key === key)) throw conflict(`Step ${key} already exists`);
    steps.splice(position ?? steps.length, 0, { key, title, intro, questions: [] });
    return { stepKey: key };
  });
}

export function updateDraftStep(services: DomainServices, caller: Caller, stepKey: string, changes: z.output<typeof updateStepSchema>) {
  return editDraftBank(services, caller, 'step.update', (steps) => {
    const step = findStep(steps, stepKey);
    const before = { title: step.title, intro: step.intro };
    Object.assign(step, changes);
    return { stepKey, before, after: changes };
  });
}

/** Puts a step's questions in a new order; the list must hold every question of the step once. */
export function reorderDraftStep(services: DomainServices, caller: Caller, stepKey: string, questionIds: string[]) {
  return editDraftBank(services, caller, 'step.reorder', (steps) => {
    const step = findStep(steps, stepKey);
    const current = step.questions.map((q) => q.id);
    if (questionIds.length !== current.length || [...questionIds].sort().join() !== [...current].sort().join()) {
      throw invalidInput('questionIds must list every question of the step exactly once');
    }
    step.questions = questionIds.map((id) => step.questions.find((q) => q.id === id)!);
    return { stepKey, before: current, after: questionIds };
  });
}

/** Throws the draft away (the next edit clones the published version again). */
export async function discardDraftBank({ storage }: DomainServices, caller: Caller): Promise<void> {
  await storage.db.transaction(async (tx) => {
    const removed = await tx.delete(questionBankVersions).where(eq(questionBankVersions.status, 'draft')).returning({ version: questionBankVersions.version });
    await recordAudit(tx, caller, { action: 'questionBank.discard', targetType: 'questionBank', targetId: removed[0] ? String(removed[0].version) : null });
  });
}

/** The published bank, the draft, what publishing would change, and every version. */
export async function bankVersionsOverview({ storage }: DomainServices) {
  const rows = await storage.db.select().from(questionBankVersions);
  const published = rows.find((row) => row.status === 'published');
  const draft = rows.find((row) => row.status === 'draft');
  const asBank = (row: typeof published) => (row ? { version: row.version, steps: row.steps } : null);
  return {
    published: asBank(published),
    draft: asBank(draft),
    differences: describeBankChanges(asBank(published), asBank(draft)),
    versions: rows
      .map((row) => ({ version: row.version, status: row.status, schoolYear: row.schoolYear, publishedAt: row.publishedAt?.toISOString() ?? null }))
      .sort((a, b) => a.version - b.version),
  };
}
