/**
 * What an export prints, independent of the format: the title block, the plan's record (status,
 * attestation, submission, review: who and when) and every step of the plan's pinned bank in order,
 * each with its visible questions (gating applied) and their answers as text or tables. Both the
 * PDF and the DOCX builder read only this.
 */
import { and, desc, eq, or } from 'drizzle-orm';
import {
  PLAN_STATUS_LABELS,
  visibleQuestions,
  type Answer,
  type PlanStatus,
  type Question,
  type QuestionBank,
  type StepAnswers,
  type TableAnswer,
} from '@csp/shared';
import type { BaseServices } from '../services.ts';
import { auditLogs, planSteps, users } from '../storage/schema.ts';
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

interface ExportStep {
  number: number;
  key: string;
  /** "Step N: <title>" */
  heading: string;
  intro: string;
  completed: boolean;
  questions: ExportQuestion[];
}

/** Who did something to the plan and when; either may be unknown (older or seeded plans). */
interface RecordEvent {
  by: string | null;
  at: Date | null;
}

export interface PlanExport {
  formId: string;
  schoolName: string;
  schoolYear: string;
  status: PlanStatus;
  statusLabel: string;
  /** Set when the export prints a past version's answers: says which (e.g. "Version: Submitted on …"). */
  versionLabel: string | null;
  principal: string | null;
  owner: string | null;
  lastUpdated: Date | null;
  attestation: { name: string; signedAt: Date | null; confirmed: boolean } | null;
  /** The last submission; null when the plan was never submitted. */
  submitted: RecordEvent | null;
  /** The last review decision that still stands: approved, or returned for changes with its reason. */
  decision: (RecordEvent & { kind: 'approved' | 'returned'; reason: string | null }) | null;
  generatedAt: Date;
  steps: ExportStep[];
  /** Steps left out because the reader's share does not cover them. */
  omittedSteps: number;
}

/** "2025-11-03 14:05 UTC": the unambiguous form for times (last update, generation). */
export function formatDateTime(date: Date | null): string {
  if (!date || Number.isNaN(date.getTime())) return '';
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * "November 28, 2026": the record's dates, in words people read in a signed document. UTC, as the
 * e-mails print dates: the district has no time zone setting.
 */
export function formatDate(date: Date | null): string {
  if (!date || Number.isNaN(date.getTime())) return '';
  return date.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
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

interface StepState {
  data: StepAnswers;
  completed: boolean;
  lastUpdated: Date | null;
}

export interface ExportInput {
  /** `updatedAt` is null for a past version saved at an unknown time. */
  plan: Pick<PlanRow, 'id' | 'schoolName' | 'schoolYear' | 'status' | 'attestation'> & { updatedAt: Date | null } & Partial<
      Pick<PlanRow, 'submittedAt' | 'reviewedAt' | 'reviewComment'>
    >;
  bank: QuestionBank;
  steps: ReadonlyMap<string, StepState>;
  principal: string | null;
  owner: string | null;
  /** Display names: who submitted last (from the audit log) and who reviewed (`plans.reviewed_by`). */
  submittedBy?: string | null;
  reviewedBy?: string | null;
  versionLabel?: string | null;
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
  const name = (value: string | null | undefined) => (value?.trim() ? clean(value.trim()) : null);
  const submittedAt = plan.submittedAt ?? null;
  const reviewedAt = plan.reviewedAt ?? null;
  const reviewedBy = name(input.reviewedBy);
  // Only the decision the status still shows: an approval reopened by a return is no longer one.
  let decision: PlanExport['decision'] = null;
  if (plan.status === 'approved' && (reviewedBy || reviewedAt)) decision = { kind: 'approved', by: reviewedBy, at: reviewedAt, reason: null };
  if (plan.status === 'rejected') decision = { kind: 'returned', by: reviewedBy, at: reviewedAt, reason: name(plan.reviewComment) };
  return {
    formId: plan.id,
    schoolName: clean(plan.schoolName),
    schoolYear: plan.schoolYear,
    status: plan.status,
    statusLabel: PLAN_STATUS_LABELS[plan.status] ?? plan.status,
    versionLabel: name(input.versionLabel),
    principal: input.principal === null ? null : clean(input.principal),
    owner: input.owner === null ? null : clean(input.owner),
    lastUpdated,
    attestation,
    submitted: submittedAt ? { by: name(input.submittedBy), at: submittedAt } : null,
    decision,
    generatedAt: input.generatedAt,
    steps,
    omittedSteps,
  };
}

const person = (user: { name: string; email: string } | undefined, email: string | null): string | null => {
  if (user) return user.name.trim() ? `${user.name} (${user.email})` : user.email;
  return email;
};

/** A person in the record: their name, else their e-mail address. */
const nameOf = (user: { name: string | null; email: string | null } | undefined): string | null => user?.name?.trim() || user?.email || null;

/** Answers to print instead of the plan's current ones: a past version of the plan. */
interface ExportVersion {
  /** Printed under the title, e.g. "Version: Submitted on November 28, 2026". */
  label: string;
  steps: Record<string, { data: StepAnswers; completed: boolean }>;
  /** When that version was saved: its "Last updated". */
  savedAt?: Date | null;
}

export interface LoadExportOptions {
  generatedAt?: Date;
  version?: ExportVersion;
}

/**
 * Reads what the export of a readable plan needs: its pinned bank, its steps (or the version's),
 * its people and who submitted it last (the plan keeps only when: the audit log has who).
 */
export async function loadPlanExport(services: BaseServices, context: PlanContext, options: LoadExportOptions = {}): Promise<PlanExport> {
  const { plan, actor } = context;
  const { db } = services.storage;
  const { version, generatedAt = new Date() } = options;
  const lookups = [];
  if (plan.userId) lookups.push(eq(users.id, plan.userId));
  if (plan.principalEmail) lookups.push(eq(users.email, plan.principalEmail.toLowerCase()));
  if (plan.reviewedBy) lookups.push(eq(users.id, plan.reviewedBy));
  const [bank, stepRows, people, submissions] = await Promise.all([
    services.banks.resolve(plan.questionBankVersion),
    version
      ? Promise.resolve(Object.entries(version.steps).map(([stepKey, step]) => ({ stepKey, data: step.data, completed: step.completed, lastUpdated: null })))
      : db
          .select({ stepKey: planSteps.stepKey, data: planSteps.data, completed: planSteps.completed, lastUpdated: planSteps.lastUpdated })
          .from(planSteps)
          .where(eq(planSteps.formId, plan.id)),
    lookups.length
      ? db
          .select({ id: users.id, name: users.name, email: users.email })
          .from(users)
          .where(or(...lookups))
      : Promise.resolve([]),
    plan.submittedAt
      ? db
          .select({ name: users.name, email: auditLogs.actorEmail })
          .from(auditLogs)
          .leftJoin(users, eq(users.id, auditLogs.actorId))
          .where(and(eq(auditLogs.targetType, 'plan'), eq(auditLogs.targetId, plan.id), eq(auditLogs.action, 'plan.submit')))
          .orderBy(desc(auditLogs.createdAt))
          .limit(1)
      : Promise.resolve([]),
  ]);
  const owner = plan.userId ? people.find((user) => user.id === plan.userId) : undefined;
  const principal = plan.principalEmail ? people.find((user) => user.email === plan.principalEmail!.toLowerCase()) : undefined;
  const reviewer = plan.reviewedBy ? people.find((user) => user.id === plan.reviewedBy) : undefined;
  return buildPlanExport({
    plan: version ? { ...plan, updatedAt: version.savedAt ?? null } : plan,
    bank,
    steps: new Map(stepRows.map((row) => [row.stepKey, { data: row.data, completed: row.completed, lastUpdated: row.lastUpdated }])),
    principal: person(principal, plan.principalEmail),
    owner: plan.userId ? person(owner, null) : null,
    submittedBy: nameOf(submissions[0]),
    reviewedBy: nameOf(reviewer),
    versionLabel: version?.label ?? null,
    canRead: (stepKey) => can(actor, 'readStep', { plan: context, stepKey }),
    generatedAt,
  });
}

/** The title block's label/value lines, the same in both formats. */
export function titleFields(plan: PlanExport): [string, string][] {
  return [
    ['School', plan.schoolName],
    ['School year', plan.schoolYear],
    ['Principal', plan.principal ?? '—'],
    ['Owner', plan.owner ?? '—'],
    ['Last updated', formatDateTime(plan.lastUpdated) || '—'],
    ['Exported', formatDateTime(plan.generatedAt)],
  ];
}

/** " by <who> on <date>", leaving out what is not known. */
const byOn = (event: RecordEvent) => `${event.by ? ` by ${event.by}` : ''}${event.at ? ` on ${formatDate(event.at)}` : ''}`;

/**
 * The record block's sentences, the same in both formats: the status in people's words, the
 * attestation, the last submission and the review decision that stands (a return with its reason).
 */
export function recordLines(plan: PlanExport): string[] {
  const lines = [`Status: ${plan.statusLabel}`];
  const attestation = plan.attestation;
  if (attestation?.name.trim()) {
    const on = attestation.signedAt ? ` on ${formatDate(attestation.signedAt)}` : '';
    lines.push(attestation.confirmed ? `Attested by ${attestation.name}${on}` : `Attestation by ${attestation.name} not confirmed`);
  }
  if (plan.submitted) lines.push(`Submitted${byOn(plan.submitted)}`);
  const decision = plan.decision;
  if (decision?.kind === 'approved') lines.push(`Approved${byOn(decision)}`);
  if (decision?.kind === 'returned') {
    lines.push(`Returned for changes${byOn(decision)}`);
    if (decision.reason) lines.push(`Reason: ${decision.reason}`);
  }
  return lines;
}

/** The footer's left part on every page: which plan the page belongs to, in people's words. */
export const footerText = (plan: Pick<PlanExport, 'schoolName' | 'schoolYear'>) => `${plan.schoolName} · ${plan.schoolYear} Consolidated School Plan`;

/** `<School>_<year>_Consolidated_Plan.<ext>`, the school name with spaces as underscores. */

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
