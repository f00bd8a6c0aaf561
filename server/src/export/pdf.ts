/**
 * The PDF export: US Letter, 50 pt margins, a title block with the plan's record (status,
 * attestation, submission, approval or return) and contents, then the steps one after another: a
 * step starts a new page only when its heading and first lines do not fit on this one. Answers wrap
 * and break across pages, tables repeat their navy header row on every page and shrink their font
 * when wide; every page has a footer with the school, the school year and "Page n of N".
 */
import PDFDocument from 'pdfkit';
import { PdfTextWriter } from './pdfText.ts';
import { layoutText, textMetrics, type LaidLine } from './textLayout.ts';
import { footerText, recordLines, titleFields, type ExportAnswer, type ExportQuestion, type PlanExport } from './planExport.ts';

type Doc = InstanceType<typeof PDFDocument>;

const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;
const MARGIN = 50;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const CONTENT_BOTTOM = PAGE_HEIGHT - MARGIN;

const COLORS = {
  navy: '#1F2A44',
  text: '#1A1A1A',
  muted: '#555B66',
  rule: '#9AA1AC',
  grid: '#C3C8D1',
  white: '#FFFFFF',
  zebra: '#F3F5F8',
} as const;

const LINE_FACTOR = 1.45;
/** Room a text answer needs on a page to start there: two lines. */
const ANSWER_START = 40;
/** Answers are indented under their question. */
const ANSWER_INDENT = 12;
const BASELINE_FACTOR = 1.08;
/** Space above a step that follows another on the same page. */
const STEP_GAP = 24;
/** Intro lines a step's heading keeps with it on its page. */
const INTRO_KEPT = 3;

/** Table fonts: start here, shrink in half points down to the floor until the columns fit. */
const TABLE_FONT_MAX = 9;
const TABLE_FONT_MIN = 6;
const CELL_PAD_Y = 3;
/** Horizontal cell padding: less in tables of many columns. */
const cellPadX = (columns: number) => (columns > 10 ? 2 : 4);

interface TextOptions {
  size: number;
  bold?: boolean;
  color?: string;
  /** Extra left indent in points. */
  indent?: number;
  /** Space after the block in points. */
  after?: number;
}

/**
 * A table's font size, column widths and header row: natural widths when they fit, else each
 * column's longest word plus a share of the room left. Kept per table answer, as the question
 * before it needs the header's height to decide whether it starts on this page.
 */
const tableGeometries = new WeakMap<string[][], ReturnType<typeof computeTableGeometry>>();
function tableGeometry(headers: string[], rows: string[][], indent: number) {
  let geometry = tableGeometries.get(rows);
  if (!geometry) tableGeometries.set(rows, (geometry = computeTableGeometry(headers, rows, indent)));
  return geometry;
}

function computeTableGeometry(headers: string[], rows: string[][], indent: number) {
  const available = CONTENT_WIDTH - indent;
  const columns = headers.length;
  const padX = cellPadX(columns);
  const metrics = Array.from({ length: columns }, (_, c) => {
    const header = textMetrics(headers[c] ?? '', true);
    let natural = header.longestLine;
    let word = header.longestWord;
    for (const row of rows) {
      const cell = textMetrics(row[c] ?? '', false);
      natural = Math.max(natural, cell.longestLine);
      word = Math.max(word, cell.longestWord);
    }
    // Per point of font size; a long word is capped (it breaks between characters instead).
    return { natural: Math.max(natural, 1), word: Math.min(Math.max(word, 1), 14) };
  });
  // Cell padding, and a point of slack so that a word measured to fit does fit after rounding.
  const padding = columns * (2 * padX + 1);
  let size = TABLE_FONT_MAX;
  while (size > TABLE_FONT_MIN && metrics.reduce((sum, m) => sum + m.word * size, 0) + padding > available) size -= 0.5;

  // Column widths: natural widths when they fit, else each column's longest word plus a share of
  // the room left in proportion to how much more it would like.
  const naturalTotal = metrics.reduce((sum, m) => sum + m.natural * size, 0) + padding;
  let widths: number[];
  if (naturalTotal <= available) {
    const extra = available - naturalTotal;
    const total = metrics.reduce((sum, m) => sum + m.natural, 0);
    widths = metrics.map((m) => m.natural * size + 2 * padX + 1 + (extra * m.natural) / total);
  } else {
    const base = metrics.map((m) => Math.min(m.word * size, available / columns) + 2 * padX + 1);
    const left = Math.max(0, available - base.reduce((sum, w) => sum + w, 0));
    const wants = metrics.map((m, c) => Math.max(0, m.natural * size + 2 * padX + 1 - base[c]!));
    const wanted = wants.reduce((sum, w) => sum + w, 0) || 1;
    widths = base.map((w, c) => w + (left * wants[c]!) / wanted);
    const total = widths.reduce((sum, w) => sum + w, 0);
    if (total > available) widths = widths.map((w) => (w * available) / total);
  }

  const lineHeight = size * LINE_FACTOR;
  const layoutRow = (cells: string[], bold: boolean) => cells.map((cell, c) => layoutText(cell, { size, bold, width: Math.max(widths[c]! - 2 * padX, 4) }));
  const headerLines = layoutRow(headers, true);
  const headerHeight = Math.max(...headerLines.map((lines) => lines.length)) * lineHeight + 2 * CELL_PAD_Y;
  // The header stays with the first row (the first line of a row taller than a page), which is
  // not split when it fits on a page: otherwise the header would end this page alone.
  const firstRow = rows[0] ? Math.max(1, ...layoutRow(rows[0], false).map((lines) => lines.length)) : 1;
  const freshFit = Math.floor((CONTENT_BOTTOM - MARGIN - headerHeight - 2 * CELL_PAD_Y) / lineHeight);
  const start = headerHeight + (firstRow <= freshFit ? firstRow : 1) * lineHeight + 2 * CELL_PAD_Y;
  return { size, widths, padX, lineHeight, layoutRow, headerLines, headerHeight, start };
}

class PdfComposer {
  readonly doc: Doc;
  private readonly writer: PdfTextWriter;
  private y = MARGIN;

  constructor(plan: PlanExport) {
    this.doc = new PDFDocument({
      size: 'LETTER',
      margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
      bufferPages: true,
      compress: true,
      pdfVersion: '1.7',
      lang: 'en-US',
      displayTitle: true,
      info: {
        Title: `${plan.schoolName} ${plan.schoolYear} Consolidated School Plan`,
        Subject: 'Consolidated School Plan',
        Creator: 'Consolidated School Plan service',
        CreationDate: plan.generatedAt,
      },
    });
    this.writer = new PdfTextWriter(this.doc);
  }

  newPage(): void {
    this.doc.addPage();
    this.y = MARGIN;
  }

  private room(): number {
    return CONTENT_BOTTOM - this.y;
  }

  /** Starts a new page unless `height` more points fit on this one. */
  ensure(height: number): void {
    if (height > this.room() && this.y > MARGIN) this.newPage();
  }

  gap(points: number): void {
    this.y = Math.min(this.y + points, CONTENT_BOTTOM);
  }

  /** Text that wraps to the content width and continues on the next page when it runs out. */
  text(text: string, options: TextOptions): void {
    const indent = options.indent ?? 0;
    const lines = layoutText(text, { size: options.size, bold: options.bold ?? false, width: CONTENT_WIDTH - indent });
    this.lines(lines, MARGIN + indent, options);
    this.gap(options.after ?? 0);
  }

  /** Draws laid-out lines from the cursor down, continuing on a new page when the page is full. */
  private lines(lines: LaidLine[], x: number, options: TextOptions): void {
    const lineHeight = options.size * LINE_FACTOR;
    this.doc.fillColor(options.color ?? COLORS.text);
    for (const line of lines) {
      if (lineHeight > this.room()) {
        this.newPage();
        this.doc.fillColor(options.color ?? COLORS.text);
      }
      const left = line.rtl ? MARGIN + CONTENT_WIDTH - line.width : x;
      this.writer.drawLine(line, left, this.y + options.size * BASELINE_FACTOR, options.size);
      this.y += lineHeight;
    }
  }

  rule(x: number, width: number, color: string = COLORS.rule, thickness = 0.75): void {
    this.doc
      .save()
      .moveTo(x, this.y)
      .lineTo(x + width, this.y)
      .lineWidth(thickness)
      .strokeColor(color)
      .stroke()
      .restore();
  }

  /** An unanswered question: a ruled line to write on. */
  blank(indent: number): void {
    this.ensure(22);
    this.y += 16;
    this.rule(MARGIN + indent, Math.min(360, CONTENT_WIDTH - indent));
    this.y += 6;
  }

  answer(answer: ExportAnswer, indent: number): void {
    switch (answer.kind) {
      case 'blank':
        this.blank(indent);
        break;
      case 'text':
        this.text(answer.text, { size: 10, indent, color: COLORS.text });
        break;
      case 'table':
        this.table(answer.headers, answer.rows, indent);
        break;
    }
  }

  /** A table with a navy header row repeated on each page; wide tables get a smaller font. */
  table(headers: string[], rows: string[][], indent: number): void {
    const x0 = MARGIN + indent;
    const available = CONTENT_WIDTH - indent;
    const { size, widths, padX, lineHeight, layoutRow, headerLines, headerHeight, start } = tableGeometry(headers, rows, indent);

    const drawRow = (cellLines: LaidLine[][], from: number, count: number, header: boolean, shade: boolean) => {
      const height = count * lineHeight + 2 * CELL_PAD_Y;
      if (header || shade) {
        this.doc
          .save()
          .rect(x0, this.y, available, height)
          .fill(header ? COLORS.navy : COLORS.zebra)
          .restore();
      }
      this.doc.fillColor(header ? COLORS.white : COLORS.text);
      let x = x0;
      for (const [c, lines] of cellLines.entries()) {
        const width = widths[c]!;
        for (let i = 0; i < count && from + i < lines.length; i++) {
          const line = lines[from + i]!;
          const left = line.rtl ? x + width - padX - line.width : x + padX;
          this.writer.drawLine(line, left, this.y + CELL_PAD_Y + i * lineHeight + size * BASELINE_FACTOR, size);
        }
        x += width;
      }
      // Grid: the row's outline and column separators.
      this.doc
        .save()
        .lineWidth(0.5)
        .strokeColor(header ? COLORS.navy : COLORS.grid);
      this.doc.rect(x0, this.y, available, height).stroke();
      let separator = x0;
      for (const width of widths.slice(0, -1)) {
        separator += width;
        this.doc
          .moveTo(separator, this.y)
          .lineTo(separator, this.y + height)
          .stroke();
      }
      this.doc.restore();
      this.y += height;
    };
    const drawHeader = () => drawRow(headerLines, 0, Math.round((headerHeight - 2 * CELL_PAD_Y) / lineHeight), true, false);

    this.ensure(start);
    drawHeader();
    for (const [r, row] of rows.entries()) {
      const cellLines = layoutRow(row, false);
      const total = Math.max(1, ...cellLines.map((lines) => lines.length));
      let from = 0;
      while (from < total) {
        let fit = Math.floor((this.room() - 2 * CELL_PAD_Y) / lineHeight);
        // A row that fits on a fresh page is not split; a taller one is split across pages.
        const wholeFitsFresh = total - from <= Math.floor((CONTENT_BOTTOM - MARGIN - headerHeight - 2 * CELL_PAD_Y) / lineHeight);
        if (fit < total - from && (wholeFitsFresh || fit < 1)) {
          this.newPage();
          drawHeader();
          fit = Math.floor((this.room() - 2 * CELL_PAD_Y) / lineHeight);
        }
        const count = Math.max(1, Math.min(fit, total - from));
        drawRow(cellLines, from, count, false, r % 2 === 1);
        from += count;
      }
    }
    this.gap(8);
  }

  titlePage(plan: PlanExport): void {
    this.text('Consolidated School Plan', { size: 22, bold: true, color: COLORS.navy, after: 4 });
    this.text(`${plan.schoolName}`, { size: 16, bold: true, color: COLORS.text, after: 2 });
    this.text(`School year ${plan.schoolYear}`, { size: 12, color: COLORS.muted, after: plan.versionLabel ? 4 : 10 });
    if (plan.versionLabel) this.text(plan.versionLabel, { size: 12, bold: true, color: COLORS.navy, after: 10 });
    this.rule(MARGIN, CONTENT_WIDTH, COLORS.navy, 1.5);
    this.gap(12);
    const fields = titleFields(plan);
    const labelWidth = 110;
    for (const [label, value] of fields) {
      const valueLines = layoutText(value, { size: 11, width: CONTENT_WIDTH - labelWidth });
      const labelLines = layoutText(label, { size: 11, bold: true, width: labelWidth - 8 });
      const top = this.y;
      this.doc.fillColor(COLORS.muted);
      this.lines(labelLines, MARGIN, { size: 11, bold: true, color: COLORS.muted });
      const afterLabel = this.y;
      this.y = top;
      this.lines(valueLines, MARGIN + labelWidth, { size: 11, color: COLORS.text });
      this.y = Math.max(this.y, afterLabel) + 4;
    }
    this.gap(14);
    this.text('Record', { size: 13, bold: true, color: COLORS.navy, after: 4 });
    for (const line of recordLines(plan)) this.text(line, { size: 11, color: COLORS.text, after: 3 });
    this.gap(14);
    this.text('Contents', { size: 13, bold: true, color: COLORS.navy, after: 4 });
    for (const step of plan.steps) {
      this.text(`${step.heading} — ${step.completed ? 'Completed' : 'Not completed'}`, { size: 10, color: COLORS.text, after: 1 });
    }
    if (plan.omittedSteps > 0) {
      this.text(`${plan.omittedSteps} step(s) not shared with you are not included.`, { size: 9, color: COLORS.muted });
    }
  }

  /**
   * Height of a question's label with the start of its answer (two lines of text, the writing line,
   * a table's header and first row): what must fit for the question to start on this page.
   */
  private questionStart(question: ExportQuestion): number {
    const label = layoutText(question.label, { size: 10.5, bold: true, width: CONTENT_WIDTH }).length * 10.5 * LINE_FACTOR + 3;
    const { answer } = question;
    if (answer.kind === 'table') return label + tableGeometry(answer.headers, answer.rows, ANSWER_INDENT).start;
    return label + (answer.kind === 'blank' ? 22 : ANSWER_START);
  }

  steps(plan: PlanExport): void {
    for (const step of plan.steps) {
      // Steps follow one another (a one-question step does not take a page of its own); a step
      // moves to the next page only when its heading, the start of its intro and its first
      // question's start do not fit, so a heading never ends a page.
      const heading = layoutText(step.heading, { size: 16, bold: true, width: CONTENT_WIDTH });
      const intro = step.intro.trim() ? layoutText(step.intro, { size: 9.5, width: CONTENT_WIDTH }) : [];
      const first = step.questions[0];
      const firstStart = first ? this.questionStart(first) : 10 * LINE_FACTOR;
      // A long intro keeps its first lines with the heading; a short one, itself and the first question.
      const afterHeading = intro.length > INTRO_KEPT ? INTRO_KEPT * 9.5 * LINE_FACTOR : intro.length * 9.5 * LINE_FACTOR + (intro.length ? 10 : 0) + firstStart;
      if (this.y > MARGIN) this.gap(STEP_GAP);
      this.ensure(heading.length * 16 * LINE_FACTOR + 2 + 8 + afterHeading);
      this.lines(heading, MARGIN, { size: 16, bold: true, color: COLORS.navy });
      this.gap(2);
      this.rule(MARGIN, CONTENT_WIDTH, COLORS.navy, 1);
      this.gap(8);
      if (intro.length) {
        this.lines(intro, MARGIN, { size: 9.5, color: COLORS.muted });
        this.gap(10);
      }
      if (step.questions.length === 0) this.text('No questions in this step.', { size: 10, color: COLORS.muted });
      for (const question of step.questions) {
        // A question starts on the next page unless it fits here with the start of its answer.
        const label = layoutText(question.label, { size: 10.5, bold: true, width: CONTENT_WIDTH });
        this.ensure(this.questionStart(question));
        this.lines(label, MARGIN, { size: 10.5, bold: true, color: COLORS.navy });
        this.gap(3);
        this.answer(question.answer, ANSWER_INDENT);
        this.gap(10);
      }
    }
  }

  /**
   * Footers on every page: "<school> · <year> Consolidated School Plan" and "Page n of N" (pages
   * are buffered, so the count is known). A school name too long for one line is cut short.
   */
  footers(plan: PlanExport): void {
    const { start, count } = this.doc.bufferedPageRange();
    const left = layoutText(footerText(plan), { size: 8, width: CONTENT_WIDTH - 80 })[0]!;
    const baseline = PAGE_HEIGHT - MARGIN + 22;
    for (let i = start; i < start + count; i++) {
      this.doc.switchToPage(i);
      this.y = PAGE_HEIGHT - MARGIN + 8;
      this.rule(MARGIN, CONTENT_WIDTH, COLORS.grid, 0.5);
      this.doc.fillColor(COLORS.muted);
      this.writer.drawLine(left, MARGIN, baseline, 8);
      const page = layoutText(`Page ${i - start + 1} of ${count}`, { size: 8, width: CONTENT_WIDTH })[0]!;
      this.writer.drawLine(page, MARGIN + CONTENT_WIDTH - page.width, baseline, 8);
    }
  }
}

/** Renders a plan's PDF. */
export async function renderPlanPdf(plan: PlanExport): Promise<Buffer> {
  const composer = new PdfComposer(plan);
  const { doc } = composer;
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  composer.titlePage(plan);
  composer.steps(plan);
  composer.footers(plan);
  doc.end();
  return done;
}
