import { describe, expect, it } from 'vitest';
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { Question } from '@csp/shared';
import { asciiFileName, buildPlanExport, exportFileName, formatAnswer, formatDate, formatDateTime, recordLines, type ExportInput } from './planExport.ts';
import { BLANK_QUESTIONS, HIDDEN_MARKER, LONG_QUESTION, fullPlan, longAnswer, LONG_ANSWER_LENGTH } from '../testing/fullPlan.ts';

const question = (type: Question['type'], extra: Partial<Question> = {}): Question => ({
  id: 'q_one',
  number: '1a',
  title: 'T',
  type,
  required: false,
  ...extra,
});

describe('formatAnswer', () => {
  it('prints yes/no and checkbox answers as Yes/No, and nothing as blank', () => {
    expect(formatAnswer(question('yesno'), true)).toEqual({ kind: 'text', text: 'Yes' });
    expect(formatAnswer(question('yesno'), false)).toEqual({ kind: 'text', text: 'No' });
    expect(formatAnswer(question('checkbox'), true)).toEqual({ kind: 'text', text: 'Yes' });
    expect(formatAnswer(question('checkbox'), false)).toEqual({ kind: 'text', text: 'No' });
    expect(formatAnswer(question('yesno'), null)).toEqual({ kind: 'blank' });
    expect(formatAnswer(question('text'), undefined)).toEqual({ kind: 'blank' });
    expect(formatAnswer(question('textarea'), '  \n ')).toEqual({ kind: 'blank' });
  });

  it('prints a select as its label (an unknown value as itself)', () => {
    const select = question('select', {
      options: [
        { value: 'weekly', label: 'Every week' },
        { value: 'monthly', label: 'Monthly' },
      ],
    });
    expect(formatAnswer(select, 'weekly')).toEqual({ kind: 'text', text: 'Every week' });
    expect(formatAnswer(select, 'retired-option')).toEqual({ kind: 'text', text: 'retired-option' });
    expect(formatAnswer(select, '')).toEqual({ kind: 'blank' });
  });

  it('keeps text whole, with its line breaks and every script, however long', () => {
    const text = `Línea uno\n王小明\n\nযেমন রহিম — مثلا أحمد`;
    expect(formatAnswer(question('textarea'), text)).toEqual({ kind: 'text', text });
    const long = longAnswer();
    expect(long).toHaveLength(LONG_ANSWER_LENGTH);
    expect(formatAnswer(question('textarea'), long)).toEqual({ kind: 'text', text: long });
  });

  it('prints a table with its headers, dropping empty rows and padding short ones', () => {
    const table = question('table', {
      columns: [
        { header: 'Name', type: 'text' },
        { header: 'Role', type: 'text' },
      ],
    });
    expect(formatAnswer(table, { headers: ['Name', 'Role'], rows: [['王小明', 'Lead'], ['', ' '], ['أحمد']] })).toEqual({
      kind: 'table',
      headers: ['Name', 'Role'],
      rows: [
        ['王小明', 'Lead'],
        ['أحمد', ''],
      ],
    });
    expect(formatAnswer(table, { headers: [], rows: [['a', 'b', 'c']] })).toEqual({ kind: 'table', headers: ['Name', 'Role', ''], rows: [['a', 'b', 'c']] });
    expect(formatAnswer(table, { headers: ['Name', 'Role'], rows: [['', '']] })).toEqual({ kind: 'blank' });
  });

  it('prints an answer whose shape no longer matches its question as text', () => {
    expect(formatAnswer(question('table'), 'old text answer')).toEqual({ kind: 'text', text: 'old text answer' });
    expect(formatAnswer(question('text'), true)).toEqual({ kind: 'text', text: 'Yes' });
  });
});

function input(overrides: Partial<ExportInput> = {}): ExportInput {
  const fixture = fullPlan(BUNDLED_BANK);
  return {
    plan: {
      id: 'ab'.repeat(12),
      schoolName: 'Escuela Niños Unidos',
      schoolYear: '2025-2026',
      status: 'under_review',
      attestation: { confirmed: true, name: 'مثلا أحمد', signedAt: '2025-10-01T14:05:00.000Z', signedBy: 'p@example.org' },
      updatedAt: new Date('2025-09-01T00:00:00Z'),
    },
    bank: BUNDLED_BANK,
    steps: new Map(
      [...fixture.answers].map(([key, data]) => [key, { data, completed: key === 'tableOfContents', lastUpdated: new Date('2025-10-02T08:00:00Z') }]),
    ),
    principal: 'Pat Principal (principal.harbor@example.org)',
    owner: '王小明 (owner@example.org)',
    canRead: () => true,
    generatedAt: new Date('2025-10-03T09:30:00Z'),
    ...overrides,
  };
}

describe('buildPlanExport', () => {
  it('has the title block, every step in bank order and every visible question in order', () => {
    const plan = buildPlanExport(input());
    expect(plan).toMatchObject({
      formId: 'ab'.repeat(12),
      schoolName: 'Escuela Niños Unidos',
      schoolYear: '2025-2026',
      statusLabel: 'Under review',
      principal: 'Pat Principal (principal.harbor@example.org)',
      owner: '王小明 (owner@example.org)',
      lastUpdated: new Date('2025-10-02T08:00:00Z'),
      attestation: { name: 'مثلا أحمد', signedAt: new Date('2025-10-01T14:05:00.000Z'), confirmed: true },
      omittedSteps: 0,
    });
    expect(plan.steps.map((step) => step.heading)).toEqual(BUNDLED_BANK.steps.map((step, i) => `Step ${i + 1}: ${step.title}`));
    const step2 = plan.steps[1]!;
    expect(step2.intro).toBe(BUNDLED_BANK.steps[1]!.intro);
    expect(step2.questions[0]!.label).toBe(`Q2a: ${BUNDLED_BANK.steps[1]!.questions[0]!.title}`);
    expect(plan.steps[0]!.completed).toBe(true);
  });

  it('applies gating: hidden questions are not exported, blank ones are', () => {
    const plan = buildPlanExport(input());
    const questions = plan.steps.flatMap((step) => step.questions);
    const ids = questions.map((q) => q.id);
    expect(ids).not.toContain('cai_fosterPointPerson');
    expect(ids).not.toContain('cai_fosterSupports');
    expect(ids).not.toContain('asp_programs');
    expect(JSON.stringify(plan)).not.toContain(HIDDEN_MARKER);
    for (const id of BLANK_QUESTIONS) expect(questions.find((q) => q.id === id)?.answer).toEqual({ kind: 'blank' });
    expect(questions.find((q) => q.id === LONG_QUESTION)?.answer).toEqual({ kind: 'text', text: longAnswer() });
  });

  it('leaves out the steps a section-limited reader may not read, and says so', () => {
    const plan = buildPlanExport(input({ canRead: (key) => key === 'attendancePlan' }));
    expect(plan.steps.map((step) => step.key)).toEqual(['attendancePlan']);
    expect(plan.steps[0]!.number).toBe(6);
    expect(plan.omittedSteps).toBe(BUNDLED_BANK.steps.length - 1);
  });

  it('records the status in words, the attestation, the submission and the approval: who and when', () => {
    const base = input().plan;
    const approved = buildPlanExport(
      input({
        plan: { ...base, status: 'approved', submittedAt: new Date('2025-10-01T15:00:00Z'), reviewedAt: new Date('2025-11-28T23:30:00Z') },
        submittedBy: 'Pat Principal',
        reviewedBy: 'Dana Whitfield',
      }),
    );
    expect(recordLines(approved)).toEqual([
      'Status: Approved',
      'Attested by مثلا أحمد on October 1, 2025',
      'Submitted by Pat Principal on October 1, 2025',
      'Approved by Dana Whitfield on November 28, 2025',
    ]);
    // A return shows who returned it and why; the approval it reopened is gone, and so is the attestation.
    const returned = buildPlanExport(
      input({
        plan: { ...base, status: 'rejected', attestation: null, reviewedAt: new Date('2025-12-01T10:00:00Z'), reviewComment: 'Add the barriers.' },
        reviewedBy: 'Dana Whitfield',
      }),
    );
    expect(recordLines(returned)).toEqual([
      'Status: Returned for changes',
      'Returned for changes by Dana Whitfield on December 1, 2025',
      'Reason: Add the barriers.',
    ]);
    // Seeded plans know when they were submitted but not by whom.
    const seeded = buildPlanExport(input({ plan: { ...base, status: 'submitted', attestation: null, submittedAt: new Date('2025-05-15T15:00:00Z') } }));
    expect(recordLines(seeded)).toEqual(['Status: Submitted', 'Submitted on May 15, 2025']);
  });

  it('exports a plan with no answers as blanks', () => {
    const plan = buildPlanExport(input({ steps: new Map(), plan: { ...input().plan, attestation: null } }));
    expect(plan.attestation).toBeNull();
    const answers = plan.steps.flatMap((step) => step.questions.map((q) => q.answer.kind));
    expect(new Set(answers)).toEqual(new Set(['blank']));
  });
});

describe('exportFileName and formatDateTime', () => {
  it('names the file <School>_<year>_Consolidated_Plan.<ext>', () => {
    expect(exportFileName({ schoolName: 'Harbor View Academy', schoolYear: '2025-2026' }, 'pdf')).toBe('Harbor_View_Academy_2025-2026_Consolidated_Plan.pdf');
    expect(exportFileName({ schoolName: 'P.S. 12 / "Niños"', schoolYear: '2025-2026' }, 'docx')).toBe('P.S._12_Niños_2025-2026_Consolidated_Plan.docx');
    expect(asciiFileName('P.S._12_Niños_王_2025-2026_Consolidated_Plan.docx')).toBe('P.S._12_Ninos_2025-2026_Consolidated_Plan.docx');
    expect(asciiFileName('王小明_2025-2026_Consolidated_Plan.pdf')).toBe('2025-2026_Consolidated_Plan.pdf');
  });

  it('prints times in UTC to the minute, and the record dates in words (UTC)', () => {
    expect(formatDateTime(new Date('2025-10-03T09:30:59Z'))).toBe('2025-10-03 09:30 UTC');
    expect(formatDateTime(null)).toBe('');
    expect(formatDate(new Date('2026-11-28T23:59:00Z'))).toBe('November 28, 2026');
    expect(formatDate(null)).toBe('');
  });
});
