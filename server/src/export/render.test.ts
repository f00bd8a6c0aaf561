/**
 * The PDF and DOCX builders on their own (no server): an empty plan, answers at the size limits
 * (a 50,000-character answer, a 100-row table of 20 columns with long cells), text that is hard to
 * print (right-to-left paragraphs, control characters, characters no font has), and the content
 * check itself catching what it must catch.
 */
import { describe, expect, it } from 'vitest';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { TABLE_MAX_COLUMNS, TABLE_MAX_ROWS, TEXT_ANSWER_MAX_LENGTH, type StepAnswers } from '@csp/shared';
import { buildPlanExport, type ExportInput } from './planExport.ts';
import { renderPlanPdf } from './pdf.ts';
import { renderPlanDocx } from './docx.ts';
import { comparable, expectContent, expectedContent, readPdf, unzipDocx, wordText } from '../testing/exportChecks.ts';
import { SAMPLES, fullPlan } from '../testing/fullPlan.ts';

const FORM_ID = 'c0ffee'.repeat(4);

function exportOf(answers: Map<string, StepAnswers>, overrides: Partial<ExportInput['plan']> = {}) {
  return buildPlanExport({
    plan: { id: FORM_ID, schoolName: 'Harbor View Academy', schoolYear: '2025-2026', status: 'draft', attestation: null, updatedAt: new Date(), ...overrides },
    bank: BUNDLED_BANK,
    steps: new Map([...answers].map(([key, data]) => [key, { data, completed: false, lastUpdated: new Date() }])),
    principal: null,
    owner: null,
    canRead: () => true,
    generatedAt: new Date(),
  });
}

/** Answers for one question of the attendance step, the rest of the plan empty. */
function onlyAnswer(questionId: string, value: StepAnswers[string]): Map<string, StepAnswers> {
  return new Map([['attendancePlan', { [questionId]: value }]]);
}

describe('an empty plan', () => {
  it('prints every step and question with blank answers, in both formats', async () => {
    const plan = exportOf(new Map());
    const expected = expectedContent(BUNDLED_BANK, new Map());
    const pdf = readPdf(await renderPlanPdf(plan));
    expectContent(pdf.text, expected, { fromPdf: true, pdfRawText: pdf.rawText });
    // Steps follow on from one another: blank steps do not take a page each.
    expect(pdf.pages).toBeGreaterThan(1);
    expect(pdf.pages).toBeLessThan(BUNDLED_BANK.steps.length);
    const xml = unzipDocx(await renderPlanDocx(plan));
    expectContent(wordText(xml['word/document.xml']!), expected, { fromPdf: false });
  });
});

describe('answers at the size limits', () => {
  it('prints a 50,000-character answer whole, across pages', async () => {
    const words = Array.from({ length: 8000 }, (_, i) => `w${i}`).join(' ');
    const text = `${words}\n${'王小明例如'.repeat(2000)}`.slice(0, TEXT_ANSWER_MAX_LENGTH);
    const pdf = readPdf(await renderPlanPdf(exportOf(onlyAnswer('att_strategy', text))));
    expect(pdf.pages).toBeGreaterThan(20);
    expect(comparable(pdf.text).replace(/ /g, '')).toContain(text.replace(/\s/g, ''));
  });

  it('prints a 100-row, 20-column table with long cells, rows split across pages, every cell present', async () => {
    const headers = Array.from({ length: TABLE_MAX_COLUMNS }, (_, c) => `Column ${c + 1}`);
    const rows = Array.from({ length: TABLE_MAX_ROWS }, (_, r) =>
      headers.map((_, c) => (r === 3 && c === 2 ? `long${'x'.repeat(40)} ${'qz '.repeat(600)}end` : `r${r}c${c}`)),
    );
    const plan = exportOf(onlyAnswer('att_roles', { headers, rows }));
    const pdf = readPdf(await renderPlanPdf(plan));
    // Drawing order keeps a cell's lines together. A 20-column table leaves about 20 points a
    // column: a word that does not fit breaks between characters, so compare without spaces.
    const text = comparable(pdf.rawText).replace(/ /g, '');
    for (const header of headers) expect(text).toContain(header.replace(/ /g, ''));
    for (const row of rows) for (const cell of row) if (!cell.startsWith('long')) expect(text).toContain(cell);
    // The tall cell continues on the next page, after the repeated header row: all of it is there.
    expect(text).toContain(`long${'x'.repeat(40)}`);
    expect(text.split('qz').length - 1).toBe(600);
    const xml = unzipDocx(await renderPlanDocx(plan))['word/document.xml']!;
    expect(xml.split('<w:tr>')).toHaveLength(TABLE_MAX_ROWS + 2);
  });
});

describe('text that is hard to print', () => {
  it('prints right-to-left paragraphs with their words intact and in order', async () => {
    const arabic = 'مثلا أحمد يعمل في المدرسة\nالسلام عليكم ورحمة الله';
    const pdf = readPdf(await renderPlanPdf(exportOf(onlyAnswer('att_barriers', arabic))));
    const text = comparable(pdf.text);
    expect(text).toContain('مثلا أحمد يعمل في المدرسة');
    expect(text).toContain('السلام عليكم ورحمة الله');
    const xml = unzipDocx(await renderPlanDocx(exportOf(onlyAnswer('att_barriers', arabic))))['word/document.xml']!;
    expect(xml).toContain('<w:bidi/>');
    expect(wordText(xml)).toContain(arabic);
  });

  it('keeps control characters out of the XML and characters no font has in the PDF text', async () => {
    const text = `bell\u0007 form\u000c feed 😀 ok`;
    const plan = exportOf(onlyAnswer('att_barriers', text));
    const xml = unzipDocx(await renderPlanDocx(plan))['word/document.xml']!;
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(wordText(xml)).toContain('bell  form  feed 😀 ok');
    const pdf = readPdf(await renderPlanPdf(plan));
    expect(comparable(pdf.text)).toContain('bell form feed 😀 ok');
  });

  it('prints a school name in any script in the title block and the document title', async () => {
    const plan = exportOf(new Map(), { schoolName: `${SAMPLES.chinese} ${SAMPLES.bengali} Escuela` });
    const pdf = readPdf(await renderPlanPdf(plan));
    expect(comparable(pdf.text)).toContain(`${SAMPLES.chinese} ${SAMPLES.bengali} Escuela`);
    const docx = unzipDocx(await renderPlanDocx(plan));
    expect(docx['docProps/core.xml']).toContain(`${SAMPLES.chinese} ${SAMPLES.bengali} Escuela 2025-2026 Consolidated School Plan`);
  });
});

describe('the content check', () => {
  const fixture = fullPlan(BUNDLED_BANK);
  const expected = expectedContent(BUNDLED_BANK, fixture.answers);

  it('passes on a real export and fails on a missing answer, a printed blank or questions out of order', async () => {
    const text = wordText(unzipDocx(await renderPlanDocx(exportOf(fixture.answers)))['word/document.xml']!);
    expectContent(text, expected, { fromPdf: false });
    const q = expected[5]!.questions[0]!;
    const answer = q.answer.kind === 'text' ? q.answer.text : '';
    expect(() => expectContent(text.replace(answer, ''), expected, { fromPdf: false })).toThrow(/answer to/);
    const blank = expected[2]!.questions.find((question) => question.answer.kind === 'blank')!;
    expect(() => expectContent(text.replace(blank.label, `${blank.label}\nsomething`), expected, { fromPdf: false })).toThrow(/blank/);
    const swapped = [...expected];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    expect(() => expectContent(text, swapped, { fromPdf: false })).toThrow();
  });
});
