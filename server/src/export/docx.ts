/**
 * The DOCX export: the same content as the PDF (title block with the plan's record, then the steps
 * one after another, each heading kept with what follows it), US Letter with 50 pt margins and a
 * footer "<school> · <year> Consolidated School Plan" with "Page n of N" (Word fields). Text keeps
 * its line breaks (w:br). The
 * document default names Noto faces for Latin, East Asian and complex-script text (w:rFonts
 * ascii/hAnsi, eastAsia, cs) and each run of another script names its own face and language, so
 * Word and LibreOffice pick a font that has the glyphs (or their own font for that script when the
 * Noto face is not installed); Arabic and Hebrew runs are marked right to left. Fonts are not
 * embedded. Tables have a header row, repeated on each page, in navy with white bold text.
 */
import {
  AlignmentType,
  BorderStyle,
  Document,
  Footer,
  HeadingLevel,
  Packer,
  PageNumber,
  Paragraph,
  ShadingType,
  Table,
  TableCell,
  TableLayoutType,
  TableRow,
  TabStopType,
  TextRun,
  WidthType,
  type IRunOptions,
} from 'docx';
import { FACES } from './fonts.ts';
import { splitByScript, type Script } from './scripts.ts';
import { normalizeText } from './textLayout.ts';
import { footerText, recordLines, titleFields, type ExportAnswer, type PlanExport } from './planExport.ts';

const NAVY = '1F2A44';
const MUTED = '555B66';
const GRID = 'C3C8D1';
const RULE = '9AA1AC';

/** Twentieths of a point: Letter is 8.5 × 11 in, margins 50 pt. */
const PAGE_WIDTH = 12240;
const PAGE_HEIGHT = 15840;
const MARGIN = 1000;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const ANSWER_INDENT = 240;

/**
 * Run fonts for text that the document default (Noto Sans; Noto Sans SC for East Asian text; Noto
 * Naskh Arabic for complex scripts) does not already name, and the run's language.
 */
const SCRIPT_RUN: Partial<Record<Script, Pick<IRunOptions, 'font' | 'language' | 'rightToLeft'>>> = {
  cjk: { font: { eastAsia: FACES.cjk.family, hint: 'eastAsia' }, language: { eastAsia: 'zh-CN' } },
  korean: { font: { eastAsia: FACES.korean.family, hint: 'eastAsia' }, language: { eastAsia: 'ko-KR' } },
  arabic: { font: { cs: FACES.arabic.family, hint: 'cs' }, language: { bidirectional: 'ar-SA' }, rightToLeft: true },
  hebrew: { font: { cs: FACES.hebrew.family, hint: 'cs' }, language: { bidirectional: 'he-IL' }, rightToLeft: true },
  bengali: { font: { cs: FACES.bengali.family, hint: 'cs' }, language: { bidirectional: 'bn-BD' } },
};

interface RunStyle {
  bold?: boolean;
  color?: string;
  /** Half points. */
  size?: number;
}

/**
 * Runs for text: one per script run, a line break (w:br) for each `\n`. Formatting normally comes
 * from the paragraph style; `style` is for the few runs that differ.
 */
function runs(text: string, style: RunStyle = {}): TextRun[] {
  const result: TextRun[] = [];
  const look = {
    ...(style.bold ? { bold: true, boldComplexScript: true } : {}),
    ...(style.color ? { color: style.color } : {}),
    ...(style.size ? { size: style.size, sizeComplexScript: style.size } : {}),
  };
  for (const [index, line] of normalizeText(text).split('\n').entries()) {
    const lineRuns = splitByScript(line);
    if (lineRuns.length === 0) {
      result.push(new TextRun({ text: '', ...(index > 0 ? { break: 1 } : {}) }));
      continue;
    }
    for (const [r, run] of lineRuns.entries()) {
      result.push(new TextRun({ text: run.text, ...(index > 0 && r === 0 ? { break: 1 } : {}), ...look, ...SCRIPT_RUN[run.script] }));
    }
  }
  return result;
}

/** A paragraph whose first letter is Arabic or Hebrew reads right to left. */
function startsRtl(text: string): boolean {
  const first = /\p{L}/u.exec(text)?.[0];
  return first !== undefined && /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/.test(first);
}

function textParagraph(text: string, options: { style?: string; run?: RunStyle; keepNext?: boolean; pageBreakBefore?: boolean } = {}): Paragraph {
  return new Paragraph({
    children: runs(text, options.run),
    ...(options.style ? { style: options.style } : {}),
    ...(startsRtl(text) ? { bidirectional: true } : {}),
    ...(options.keepNext ? { keepNext: true } : {}),
    ...(options.pageBreakBefore ? { pageBreakBefore: true } : {}),
  });
}

/** Half-point font sizes of table text: smaller as tables get wider. */
const TABLE_SIZES = [19, 17, 16, 13, 12] as const;
function tableFontSize(columns: number): (typeof TABLE_SIZES)[number] {
  if (columns <= 4) return 19;
  if (columns <= 6) return 17;
  if (columns <= 8) return 16;
  if (columns <= 12) return 13;
  return 12;
}

function table(headers: string[], rows: string[][]): Table {
  const size = tableFontSize(headers.length);
  const width = CONTENT_WIDTH - ANSWER_INDENT;
  // Columns share the width by the length of their longest text (within limits).
  const weights = headers.map((header, c) => {
    const texts = [header, ...rows.map((row) => row[c] ?? '')];
    const longest = Math.max(...texts.map((text) => Math.min(text.length, 40)));
    return Math.max(longest, 4);
  });
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const columnWidths = weights.map((weight) => Math.floor((width * weight) / total));
  const border = { style: BorderStyle.SINGLE, size: 4, color: GRID };
  const headerShading = { fill: NAVY, type: ShadingType.CLEAR, color: 'auto' };
  const cell = (text: string, c: number, header: boolean) =>
    new TableCell({
      width: { size: columnWidths[c]!, type: WidthType.DXA },
      ...(header ? { shading: headerShading } : {}),
      children: [textParagraph(text, { style: `${header ? 'HeaderCell' : 'Cell'}${size}` })],
    });
  return new Table({
    layout: TableLayoutType.FIXED,
    width: { size: width, type: WidthType.DXA },
    columnWidths,
    indent: { size: ANSWER_INDENT, type: WidthType.DXA },
    margins: { top: 40, bottom: 40, left: 80, right: 80 },
    borders: { top: border, bottom: border, left: border, right: border, insideHorizontal: border, insideVertical: border },
    rows: [
      new TableRow({ tableHeader: true, cantSplit: true, children: headers.map((header, c) => cell(header, c, true)) }),
      ...rows.map((row) => new TableRow({ children: headers.map((_, c) => cell(row[c] ?? '', c, false)) })),
    ],
  });
}

function answer(answerValue: ExportAnswer): (Paragraph | Table)[] {
  switch (answerValue.kind) {
    case 'blank':
      // A ruled line to write on.
      return [
        new Paragraph({
          children: [],
          indent: { left: ANSWER_INDENT, right: CONTENT_WIDTH / 3 },
          spacing: { before: 240, after: 120 },
          border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: RULE, space: 1 } },
        }),
      ];
    case 'text':
      return [textParagraph(answerValue.text, { style: 'Answer' })];
    case 'table':
      return [table(answerValue.headers, answerValue.rows), new Paragraph({ children: [], spacing: { after: 120 } })];
  }
}

function titleBlock(plan: PlanExport): Paragraph[] {
  const fields = titleFields(plan);
  return [
    new Paragraph({ heading: HeadingLevel.TITLE, children: runs('Consolidated School Plan') }),
    textParagraph(plan.schoolName, { run: { bold: true, size: 32 } }),
    textParagraph(`School year ${plan.schoolYear}`, { run: { color: MUTED, size: 24 } }),
    ...(plan.versionLabel ? [textParagraph(plan.versionLabel, { run: { bold: true, color: NAVY, size: 24 } })] : []),
    ...fields.map(
      (field, i) =>
        new Paragraph({
          children: [...runs(`${field[0]}: `, { bold: true, color: MUTED }), ...runs(field[1])],
          ...(i === 0 ? { spacing: { before: 240 } } : {}),
        }),
    ),
    new Paragraph({ heading: HeadingLevel.HEADING_2, children: runs('Record') }),
    ...recordLines(plan).map((line) => textParagraph(line, { run: { size: 22 } })),
    new Paragraph({ heading: HeadingLevel.HEADING_2, children: runs('Contents') }),
    ...plan.steps.map((step) => textParagraph(`${step.heading} — ${step.completed ? 'Completed' : 'Not completed'}`)),
    ...(plan.omittedSteps > 0 ? [textParagraph(`${plan.omittedSteps} step(s) not shared with you are not included.`, { run: { color: MUTED } })] : []),
  ];
}

function stepBlocks(plan: PlanExport): (Paragraph | Table)[] {
  const blocks: (Paragraph | Table)[] = [];
  for (const step of plan.steps) {
    // No forced page break: the heading (and the intro) keep with the next paragraph instead.
    blocks.push(new Paragraph({ heading: HeadingLevel.HEADING_1, keepNext: true, children: runs(step.heading) }));
    if (step.intro.trim()) blocks.push(textParagraph(step.intro, { style: 'Intro', keepNext: true }));
    if (step.questions.length === 0) blocks.push(textParagraph('No questions in this step.', { style: 'Intro' }));
    for (const question of step.questions) {
      blocks.push(textParagraph(question.label, { style: 'Question' }));
      blocks.push(...answer(question.answer));
    }
  }
  return blocks;
}

/** Renders a plan's DOCX. */
export async function renderPlanDocx(plan: PlanExport): Promise<Buffer> {
  const latin = FACES.latin.family;
  const document = new Document({
    creator: 'Consolidated School Plan service',
    title: `${plan.schoolName} ${plan.schoolYear} Consolidated School Plan`,
    description: 'Consolidated School Plan',
    styles: {
      default: {
        document: {
          run: { font: { ascii: latin, hAnsi: latin, eastAsia: FACES.cjk.family, cs: FACES.arabic.family }, size: 20, sizeComplexScript: 20 },
          paragraph: { spacing: { after: 80 } },
        },
        title: { run: { color: NAVY, bold: true, size: 44 } },
        heading1: { run: { color: NAVY, bold: true, boldComplexScript: true, size: 32 }, paragraph: { spacing: { before: 480, after: 160 } } },
        heading2: { run: { color: NAVY, bold: true, boldComplexScript: true, size: 26 }, paragraph: { spacing: { before: 360, after: 120 } } },
      },
      paragraphStyles: [
        {
          id: 'Question',
          name: 'Question',
          basedOn: 'Normal',
          run: { color: NAVY, bold: true, boldComplexScript: true, size: 21, sizeComplexScript: 21 },
          paragraph: { keepNext: true, spacing: { before: 200, after: 60 } },
        },
        { id: 'Answer', name: 'Answer', basedOn: 'Normal', paragraph: { indent: { left: ANSWER_INDENT }, spacing: { after: 120 } } },
        { id: 'Intro', name: 'Step intro', basedOn: 'Normal', run: { color: MUTED, size: 19, sizeComplexScript: 19 }, paragraph: { spacing: { after: 200 } } },
        ...TABLE_SIZES.flatMap((size) => [
          {
            id: `Cell${size}`,
            name: `Table text ${size / 2} pt`,
            basedOn: 'Normal',
            run: { size, sizeComplexScript: size },
            paragraph: { spacing: { after: 0 } },
          },
          {
            id: `HeaderCell${size}`,
            name: `Table header ${size / 2} pt`,
            basedOn: 'Normal',
            run: { size, sizeComplexScript: size, bold: true, boldComplexScript: true, color: 'FFFFFF' },
            paragraph: { spacing: { after: 0 } },
          },
        ]),
      ],
    },
    sections: [
      {
        properties: {
          page: {
            size: { width: PAGE_WIDTH, height: PAGE_HEIGHT },
            margin: { top: MARGIN, right: MARGIN, bottom: MARGIN, left: MARGIN, header: 500, footer: 500 },
          },
        },
        footers: {
          default: new Footer({
            children: [
              new Paragraph({
                tabStops: [{ type: TabStopType.RIGHT, position: CONTENT_WIDTH }],
                border: { top: { style: BorderStyle.SINGLE, size: 4, color: GRID, space: 4 } },
                alignment: AlignmentType.LEFT,
                children: [
                  ...runs(footerText(plan), { size: 16, color: MUTED }),
                  new TextRun({ children: ['\tPage ', PageNumber.CURRENT, ' of ', PageNumber.TOTAL_PAGES], size: 16, color: MUTED }),
                ],
              }),
            ],
          }),
        },
        children: [...titleBlock(plan), ...stepBlocks(plan)],
      },
    ],
  });
  return Packer.toBuffer(document);
}
