/**
 * What an export prints, independent of the format: the title block and every step of the plan's
 * pinned bank in order, each with its visible questions (gating applied) and their answers as text
 * or tables. Both the PDF and the DOCX builder read only this.
 */
import { eq, or } from 'drizzle-orm';
import { visibleQuestions, type Answer, type PlanStatus, type Question, type QuestionBank, type StepAnswers, type TableAnswer } from '@csp/shared';
import type { BaseServices } from '../services.ts';
import { planSteps, users } from '../storage/schema.ts';
import { can } from '../policy/index.ts';
import type { PlanContext } from '../domain/plans/loadPlan.ts';
import { normalizeText } from './textLayout.ts';
import type { PlanRow } from '../storage/rows.ts';

export type ExportAnswer = { kind: 'blank' } | { kind: 'text'; text: string } | { kind: 'table'; headers: string[]; rows: string[][] };

export interface ExportQuestion {
  id: string;
  /** "Q<number>: <title>" */
  label: string;
  answer: ExportAnswer;
}

export interface ExportStep {
  number: number;
  key: string;
  /** "Step N: <title>" */
  heading: string;
  intro: string;
  completed: boolean;
  questions: ExportQuestion[];
}

export interface PlanExport {
  formId: string;
  schoolName: string;
  schoolYear: string;
  statusLabel: string;
  principal: string | null;
  owner: string | null;
  lastUpdated: Date | null;
  attestation: { name: string; signedAt: Date | null; confirmed: boolean } | null;
  generatedAt: Date;
  steps: ExportStep[];
  /** Steps left out because the reader's share does not cover them. */
  omittedSteps: number;
}

export const STATUS_LABELS: Record<PlanStatus, string> = {
  draft: 'Draft',
  submitted: 'Submitted',
  under_review: 'Under review',
  approved: 'Approved',
  rejected: 'Returned for changes',
};

/** "2025-11-03 14:05 UTC": one unambiguous form for every date an export prints. */
export function formatDateTime(date: Date | null): string {
  if (!date || Number.isNaN(date.getTime())) return '';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const clean = (text: string) => normalizeText(text);
const isBlankText = (text: string) => text.trim() === '';

/**
 * The printed form of one answer: yes/no and checkbox as Yes/No, a select as its option's label,
 * text with its line breaks, a table as headers and rows (empty rows dropped), nothing as blank.
 * An answer whose shape does not match its question (the bank changed) is printed as text.
 */
export function formatAnswer(question: Question, answer: Answer | undefined): ExportAnswer {
  if (answer === null || answer === undefined) return { kind: 'blank' };
  switch (question.type) {
    case 'yesno':
    case 'checkbox':
      if (typeof answer === 'boolean') return { kind: 'text', text: answer ? 'Yes' : 'No' };
      break;
    case 'select':
      if (typeof answer === 'string') {
        if (isBlankText(answer)) return { kind: 'blank' };
        const option = question.options?.find((candidate) => candidate.value === answer);
        return { kind: 'text', text: clean(option ? option.label : answer) };
      }
      break;
    case 'text':
    case 'textarea':
      if (typeof answer === 'string') return isBlankText(answer) ? { kind: 'blank' } : { kind: 'text', text: clean(answer) };
      break;
    case 'table':
      if (typeof answer === 'object' && Array.isArray((answer as TableAnswer).rows)) return formatTable(question, answer as TableAnswer);
      break;
  }
  return formatLoose(answer);
}

function formatTable(question: Question, table: TableAnswer): ExportAnswer {
  const rows = table.rows
    .map((row) => (Array.isArray(row) ? row.map((cell) => clean(typeof cell === 'string' ? cell : String(cell ?? ''))) : []))
    .filter((row) => row.some((cell) => !isBlankText(cell)));
  if (rows.length === 0) return { kind: 'blank' };
  const columnHeaders = (question.columns ?? []).map((column) => column.header);
  const given = Array.isArray(table.headers) ? table.headers.map((header) => clean(String(header ?? ''))) : [];
  const width = Math.max(given.length, ...rows.map((row) => row.length), 1);
  const headers = Array.from({ length: width }, (_, i) => (given[i]?.trim() ? given[i]! : (columnHeaders[i] ?? '')));
  return { kind: 'table', headers, rows: rows.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? '')) };
}

function formatLoose(answer: Answer): ExportAnswer {
  if (typeof answer === 'boolean') return { kind: 'text', text: answer ? 'Yes' : 'No' };
  if (typeof answer === 'string') return isBlankText(answer) ? { kind: 'blank' } : { kind: 'text', text: clean(answer) };
  if (typeof answer === 'number') return { kind: 'text', text: String(answer) };
  if (answer && typeof answer === 'object' && Array.isArray((answer as TableAnswer).rows)) {
    return formatTable({ id: 'loose', number: '', title: '', type: 'table', required: false }, answer as TableAnswer);
  }
  return { kind: 'text', text: clean(JSON.stringify(answer)) };
}

export interface StepState {
  data: StepAnswers;
  completed: boolean;
  lastUpdated: Date | null;
}

export interface ExportInput {
  plan: Pick<PlanRow, 'id' | 'schoolName' | 'schoolYear' | 'status' | 'attestation' | 'updatedAt'>;
  bank: QuestionBank;
  steps: ReadonlyMap<string, StepState>;
  principal: string | null;
  owner: string | null;
  /** Whether the reader may see a step (section-limited shares see only theirs). */
  canRead: (stepKey: string) => boolean;
  generatedAt: Date;
}

/** The export of a plan from its rows: pure, so the content rules are tested without a server. */
export function buildPlanExport(input: ExportInput): PlanExport {
  const { plan, bank } = input;
  const steps: ExportStep[] = [];
  let omittedSteps = 0;
  let lastUpdated: Date | null = plan.updatedAt ?? null;
  for (const [index, step] of bank.steps.entries()) {
    if (!input.canRead(step.key)) {
      omittedSteps++;
      continue;
    }
    const state = input.steps.get(step.key);
    const answers = state?.data ?? {};
    if (state?.lastUpdated && (!lastUpdated || state.lastUpdated > lastUpdated)) lastUpdated = state.lastUpdated;
    steps.push({
      number: index + 1,
      key: step.key,
      heading: clean(`Step ${index + 1}: ${step.title}`),
      intro: clean(step.intro),
      completed: state?.completed ?? false,
      questions: visibleQuestions(step, answers).map((question) => ({
        id: question.id,
        label: clean(`Q${question.number}: ${question.title}`),
        answer: formatAnswer(question, answers[question.id]),
      })),
    });
  }
  const attestation = plan.attestation
    ? {
        name: clean(plan.attestation.name ?? ''),
        signedAt: plan.attestation.signedAt ? new Date(plan.attestation.signedAt) : null,
        confirmed: plan.attestation.confirmed !== false,
      }
    : null;
  return {
    formId: plan.id,
    schoolName: clean(plan.schoolName),
    schoolYear: plan.schoolYear,
    statusLabel: STATUS_LABELS[plan.status] ?? plan.status,
    principal: input.principal === null ? null : clean(input.principal),
    owner: input.owner === null ? null : clean(input.owner),
    lastUpdated,
    attestation,
    generatedAt: input.generatedAt,
    steps,
    omittedSteps,
  };
}

const person = (user: { name: string; email: string } | undefined, email: string | null): string | null => {
  if (user) return user.name.trim() ? `${user.name} (${user.email})` : user.email;
  return email;
};

/** Reads what the export of a readable plan needs: its pinned bank, its steps, its people. */
export async function loadPlanExport(services: BaseServices, context: PlanContext, generatedAt = new Date()): Promise<PlanExport> {
  const { plan, actor } = context;
  const lookups = [];
  if (plan.userId) lookups.push(eq(users.id, plan.userId));
  if (plan.principalEmail) lookups.push(eq(users.email, plan.principalEmail.toLowerCase()));
  const [bank, stepRows, people] = await Promise.all([
    services.banks.resolve(plan.questionBankVersion),
    services.storage.db
      .select({ stepKey: planSteps.stepKey, data: planSteps.data, completed: planSteps.completed, lastUpdated: planSteps.lastUpdated })
      .from(planSteps)
      .where(eq(planSteps.formId, plan.id)),
    lookups.length
      ? services.storage.db
          .select({ id: users.id, name: users.name, email: users.email })
          .from(users)
          .where(or(...lookups))
      : Promise.resolve([]),
  ]);
  const owner = plan.userId ? people.find((user) => user.id === plan.userId) : undefined;
  const principal = plan.principalEmail ? people.find((user) => user.email === plan.principalEmail!.toLowerCase()) : undefined;
  return buildPlanExport({
    plan,
    bank,
    steps: new Map(stepRows.map((row) => [row.stepKey, { data: row.data, completed: row.completed, lastUpdated: row.lastUpdated }])),
    principal: person(principal, plan.principalEmail),
    owner: plan.userId ? person(owner, null) : null,
    canRead: (stepKey) => can(actor, 'readStep', { plan: context, stepKey }),
    generatedAt,
  });
}

/** `<School>_<year>_Consolidated_Plan.<ext>`, the school name with spaces as underscores. */
/** The title block's label/value lines, the same in both formats. */
export function titleFields(plan: PlanExport): [string, string][] {
  const fields: [string, string][] = [
    ['School', plan.schoolName],
    ['School year', plan.schoolYear],
    ['Status', plan.statusLabel],
    ['Principal', plan.principal ?? '—'],
    ['Owner', plan.owner ?? '—'],
    ['Last updated', formatDateTime(plan.lastUpdated) || '—'],
  ];
  if (plan.attestation) {
    fields.push(['Attested by', plan.attestation.name + (plan.attestation.confirmed ? '' : ' (not confirmed)')]);
    fields.push(['Signed at', formatDateTime(plan.attestation.signedAt) || '—']);
  }
  return fields;
}

export function exportFileName(plan: Pick<PlanExport, 'schoolName' | 'schoolYear'>, extension: 'pdf' | 'docx'): string {
  const school =
    plan.schoolName
      .normalize('NFC')
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]/g, '')
      .trim()
      .replace(/\s+/g, '_') || 'School';
  return `${school}_${plan.schoolYear}_Consolidated_Plan.${extension}`;
}

/**
 * The file name in plain ASCII, for the `filename` parameter old clients read (the full name goes
 * in `filename*`): accents dropped, other non-ASCII letters left out.
 */
export function asciiFileName(fileName: string): string {
  return fileName
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/_{2,}/g, '_')
    .replace(/^_+/, '');
}
