/**
 * Draws laid-out lines into a pdfkit document, one text object per line with a font switch per
 * segment. pdfkit's own `text()` cannot do three things the exports need, so lines are written here
 * with pdfkit's font objects (pdfkit 0.20.2 is pinned; the internals used are typed below):
 *
 * - a right-to-left run is shaped as one run (pdfkit lays out word by word, which would print the
 *   words of an Arabic sentence in the wrong order);
 * - a ligature in a right-to-left run (Arabic lam-alef) maps back to its letters in drawing order,
 *   so text extraction, which reads the line right to left, gives them in text order;
 * - a run whose glyphs are reordered by shaping (Bengali vowel signs) carries its text in an
 *   ActualText span inside the text object (poppler places a span ended outside it wrongly).
 */
import type PDFDocument from 'pdfkit';
import { face, faceName, type FaceName } from './fonts.ts';
import { shape } from './shaping.ts';
import type { LaidLine } from './textLayout.ts';
import type { Script } from './scripts.ts';

type Doc = InstanceType<typeof PDFDocument>;

/** The parts of pdfkit's EmbeddedFont used here. */
interface PdfFont {
  id: string;
  ascender: number;
  descender: number;
  subset: { includeGlyph(glyphId: number): number };
  widths: number[];
  unicode: number[][];
  ref(): unknown;
}
/** The parts of the pdfkit document used here. */
interface DocInternals {
  _font: PdfFont;
  page: { height: number; fonts: Record<string, unknown> };
  addContent(data: string): Doc;
  registerFont(name: string, src: unknown): Doc;
  font(name: string): Doc;
}

const num = (value: number) => {
  const rounded = Math.round(value * 1000) / 1000;
  return Object.is(rounded, -0) ? '0' : String(rounded);
};

/** A PDF text string in UTF-16BE hex, which carries any Unicode text. */
function pdfTextString(text: string): string {
  let hex = '<FEFF';
  for (let i = 0; i < text.length; i++) hex += text.charCodeAt(i).toString(16).padStart(4, '0');
  return `${hex}>`;
}

/** Writes lines into one document; fonts are registered with it on first use. */
export class PdfTextWriter {
  private readonly internals: DocInternals;
  private readonly fonts = new Map<FaceName, PdfFont>();

  constructor(doc: Doc) {
    this.internals = doc as unknown as DocInternals;
  }

  font(script: Script, bold: boolean): PdfFont {
    const name = faceName(script, bold);
    let font = this.fonts.get(name);
    if (!font) {
      this.internals.registerFont(name, face(script, bold));
      this.internals.font(name);
      font = this.internals._font;
      this.fonts.set(name, font);
    }
    return font;
  }

  /** Draws one line with its baseline at `baselineY` (top-down page coordinates), starting at `x`. */
  drawLine(line: LaidLine, x: number, baselineY: number, size: number): number {
    if (line.segments.length === 0) return 0;
    const pageHeight = this.internals.page.height;
    const y = pageHeight - baselineY;
    const ops: string[] = ['q', `1 0 0 -1 0 ${num(pageHeight)} cm`, 'BT'];
    let cursor = x;
    const scale = size / 1000;
    for (const segment of line.segments) {
      const font = this.font(segment.script, segment.bold);
      this.internals.page.fonts[font.id] ??= font.ref();
      if (segment.actualText !== undefined) ops.push(`/Span <</ActualText ${pdfTextString(segment.actualText)}>> BDC`);
      ops.push(`/${font.id} ${num(size)} Tf`);
      const run = shape(segment.script, segment.bold, segment.text, segment.rtl);
      const hex: string[] = [];
      for (let i = 0; i < run.glyphIds.length; i++) {
        const gid = font.subset.includeGlyph(run.glyphIds[i]!);
        hex.push(gid.toString(16).padStart(4, '0'));
        font.widths[gid] ??= run.advanceWidths[i]!;
        if (font.unicode[gid] == null) {
          const codePoints = run.codePoints[i]!;
          // Extraction reads a right-to-left line backwards: give a ligature's letters backwards too.
          font.unicode[gid] = segment.rtl && codePoints.length > 1 ? [...codePoints].reverse() : codePoints;
        }
      }
      let commands: string[] = [];
      let from = 0;
      let penX = cursor;
      const flush = (to: number, adjust: number) => {
        if (to > from) commands.push(`<${hex.slice(from, to).join('')}> ${num(-adjust)}`);
        from = to;
      };
      const show = () => {
        if (commands.length) ops.push(`[${commands.join(' ')}] TJ`);
        commands = [];
      };
      ops.push(`1 0 0 1 ${num(penX)} ${num(y)} Tm`);
      let offsetMode = false;
      for (let i = 0; i < run.glyphIds.length; i++) {
        const xOffset = run.xOffsets[i]!;
        const yOffset = run.yOffsets[i]!;
        if (xOffset || yOffset) {
          // A positioned mark: its own matrix.
          flush(i, 0);
          show();
          ops.push(`1 0 0 1 ${num(penX + xOffset * scale)} ${num(y + yOffset * scale)} Tm`);
          flush(i + 1, 0);
          show();
          offsetMode = true;
        } else {
          if (offsetMode) {
            ops.push(`1 0 0 1 ${num(penX)} ${num(y)} Tm`);
            offsetMode = false;
          }
          const adjust = run.xAdvances[i]! - run.advanceWidths[i]!;
          if (adjust !== 0) flush(i + 1, adjust);
        }
        penX += run.xAdvances[i]! * scale;
      }
      flush(run.glyphIds.length, 0);
      show();
      if (segment.actualText !== undefined) ops.push('EMC');
      cursor = penX;
    }
    ops.push('ET', 'Q');
    this.internals.addContent(ops.join('\n'));
    return cursor - x;
  }
}
