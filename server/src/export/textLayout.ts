/**
 * Line layout for the PDF: splits text into paragraphs at line breaks, into font runs by script,
 * orders right-to-left runs with the Unicode bidirectional algorithm, and wraps lines to a width
 * (at spaces, and between Chinese/Japanese characters; a word wider than the line is broken between
 * characters). Nothing is dropped: every character of the input ends on some line.
 */
import bidiModule from 'bidi-js';
import { covers } from './fonts.ts';
import { advanceOf } from './shaping.ts';
import { RTL_SCRIPTS, classify, hasRtl, reordersGlyphs, splitByScript, type Coverage, type Script } from './scripts.ts';

// bidi-js is CommonJS whose typings declare an ES default export: Node hands over the factory itself.
type BidiFactory = typeof import('bidi-js').default;
const bidiFactory = (typeof bidiModule === 'function' ? bidiModule : (bidiModule as { default: BidiFactory }).default) as BidiFactory;
const bidi = bidiFactory();

interface TextStyle {
  /** Font size in points. */
  size: number;
  bold?: boolean;
}

/** A piece of one line set in one face, in visual (left-to-right drawing) order within its line. */
interface LineSegment {
  /** The characters in text order; a right-to-left segment is reversed by the shaper when drawn. */
  text: string;
  script: Script;
  bold: boolean;
  /** Drawn right to left. */
  rtl: boolean;
  /** Set when the glyphs do not give the text back (reordered or missing glyphs): the text to carry. */
  actualText?: string;
  /** Width in points. */
  width: number;
}

export interface LaidLine {
  segments: LineSegment[];
  /** Width in points. */
  width: number;
  /** The paragraph reads right to left (it starts with an Arabic or Hebrew letter): align the line right. */
  rtl: boolean;
}

/** Measures text of one script in points. */
export type Measure = (script: Script, bold: boolean, text: string, size: number) => number;

/** Right-to-left text is shaped (and so measured) as one run; other text word by word. */
const wholeRun = (script: Script, text: string) => RTL_SCRIPTS.has(script) && hasRtl(text);

const defaultMeasure: Measure = (script, bold, text, size) => (advanceOf(script, bold, text, wholeRun(script, text)) * size) / 1000;

export interface LayoutOptions extends TextStyle {
  /** Line width in points. */
  width: number;
  measure?: Measure;
  coverage?: Coverage;
}

/**
 * Text as it is printed: Windows and old-Mac line ends and Unicode line separators become `\n`,
 * a tab becomes spaces, other control characters and unpaired surrogates (which no font or XML
 * document can carry) become a space or U+FFFD.
 */
export function normalizeText(text: string): string {
  return (
    text
      .replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')
      .replace(/\t/g, '    ')
      // eslint-disable-next-line no-control-regex -- control characters are what this removes
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/g, ' ')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .replace(/[\ufffe\uffff]/g, '\ufffd')
  );
}

const NO_BREAK_BEFORE = new Set([
  ...'、。，．：；！？）」』】〕〉》〙〗〟’”ー…‥々〻ゝゞヽヾぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ！），．：；？］｝％,.!?:;)]}%',
]);
const NO_BREAK_AFTER = new Set([...'（「『【〔〈《〘〖〝‘“（［｛([{$']);
/** Spaces a line may break after (not the no-break spaces). */
const isSpace = (char: string) => char !== '\u00a0' && char !== '\u202f' && char !== '\u2007' && /\s/.test(char);
const isIdeographic = (char: string) => classify(char.codePointAt(0)!) === 'cjk' || /[\u3000-\u303f\uff00-\uffef]/.test(char);

/**
 * Indices where a new line may start (besides 0): after a run of spaces, and between Chinese or
 * Japanese characters unless punctuation forbids it (no line starts with "。" or ends with "「").
 */
export function breakOpportunities(text: string): number[] {
  const chars = [...text];
  const points: number[] = [];
  let offset = 0;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (i > 0) {
      const previous = chars[i - 1]!;
      const spaceBreak = isSpace(previous) && !isSpace(char);
      const ideographicBreak =
        !isSpace(previous) && !isSpace(char) && (isIdeographic(previous) || isIdeographic(char)) && !NO_BREAK_BEFORE.has(char) && !NO_BREAK_AFTER.has(previous);
      if (spaceBreak || ideographicBreak) points.push(offset);
    }
    offset += char.length;
  }
  return points;
}

interface Piece {
  start: number;
  end: number;
  script: Script;
  level: number;
  covered: boolean;
}

/** Font runs split further where the bidi embedding level changes. */
function piecesOf(paragraph: string, coverage: Coverage): { pieces: Piece[]; levels: Uint8Array | null; rtl: boolean } {
  const runs = splitByScript(paragraph, coverage);
  // The paragraph's direction is that of its first letter (Unicode rules P2, P3).
  const embedding = hasRtl(paragraph) ? bidi.getEmbeddingLevels(paragraph) : null;
  const levels = embedding ? embedding.levels : null;
  const rtl = (embedding?.paragraphs[0]?.level ?? 0) % 2 === 1;
  const pieces: Piece[] = [];
  for (const run of runs) {
    const end = run.start + run.text.length;
    if (!levels) {
      pieces.push({ start: run.start, end, script: run.script, level: 0, covered: run.covered });
      continue;
    }
    let from = run.start;
    for (let i = run.start + 1; i <= end; i++) {
      if (i === end || levels[i] !== levels[from]) {
        // Never split a surrogate pair.
        if (i < end && /[\udc00-\udfff]/.test(paragraph[i]!)) continue;
        pieces.push({ start: from, end: i, script: run.script, level: levels[from]!, covered: run.covered });
        from = i;
      }
    }
  }
  return { pieces, levels, rtl };
}

/** Index of the first piece that ends after `position` (pieces are sorted and contiguous). */
function firstPieceEndingAfter(pieces: readonly Piece[], position: number): number {
  let low = 0;
  let high = pieces.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (pieces[middle]!.end <= position) low = middle + 1;
    else high = middle;
  }
  return low;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Lays out text (which may hold line breaks) into lines no wider than `width`. */
export function layoutText(text: string, options: LayoutOptions): LaidLine[] {
  const lines: LaidLine[] = [];
  for (const paragraph of normalizeText(text).split('\n')) lines.push(...layoutParagraph(paragraph, options));
  return lines;
}

function layoutParagraph(paragraph: string, options: LayoutOptions): LaidLine[] {
  if (paragraph === '') return [{ segments: [], width: 0, rtl: false }];
  const { size, width: maxWidth } = options;
  const bold = options.bold ?? false;
  const measure = options.measure ?? defaultMeasure;
  const coverage = options.coverage ?? covers;
  const { pieces, levels, rtl } = piecesOf(paragraph, coverage);

  /** Width of paragraph[start, end) across the pieces it spans. */
  const widthOf = (start: number, end: number): number => {
    let total = 0;
    for (let i = firstPieceEndingAfter(pieces, start); i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (piece.start >= end) break;
      total += measure(piece.script, bold, paragraph.slice(Math.max(start, piece.start), Math.min(end, piece.end)), size);
    }
    return total;
  };

  // Words: from one break opportunity to the next, with their trailing spaces.
  const bounds = [0, ...breakOpportunities(paragraph), paragraph.length];
  const ranges: [number, number][] = [];
  let lineStart = 0;
  let lineWidth = 0;
  let lineEmpty = true;
  for (let w = 0; w + 1 < bounds.length; w++) {
    const start = bounds[w]!;
    const end = bounds[w + 1]!;
    let core = end;
    while (core > start && isSpace(paragraph[core - 1]!)) core--;
    const coreWidth = widthOf(start, core);
    if (!lineEmpty && lineWidth + coreWidth > maxWidth) {
      ranges.push([lineStart, start]);
      lineStart = start;
      lineWidth = 0;
      lineEmpty = true;
    }
    if (lineEmpty && coreWidth > maxWidth) {
      // A word wider than the line: break it between characters.
      let pieceStart = start;
      let pieceWidth = 0;
      for (const { segment, index } of graphemes.segment(paragraph.slice(start, core))) {
        const at = start + index;
        const charWidth = widthOf(at, at + segment.length);
        if (pieceWidth > 0 && pieceWidth + charWidth > maxWidth) {
          ranges.push([pieceStart, at]);
          pieceStart = at;
          pieceWidth = 0;
        }
        pieceWidth += charWidth;
      }
      lineStart = pieceStart;
      lineWidth = pieceWidth + widthOf(core, end);
      lineEmpty = false;
      continue;
    }
    lineWidth += coreWidth + (end > core ? widthOf(core, end) : 0);
    lineEmpty = false;
  }
  ranges.push([lineStart, paragraph.length]);

  return ranges.map(([start, end]) => {
    // Trailing spaces take no room at the end of a line.
    let visibleEnd = end;
    while (visibleEnd > start && isSpace(paragraph[visibleEnd - 1]!)) visibleEnd--;
    return buildLine(paragraph, start, visibleEnd, pieces, levels, rtl, bold, size, measure);
  });
}

/** The segments of paragraph[start, end), in drawing order. */
function buildLine(
  paragraph: string,
  start: number,
  end: number,
  pieces: Piece[],
  levels: Uint8Array | null,
  rtl: boolean,
  bold: boolean,
  size: number,
  measure: Measure,
): LaidLine {
  const logical: (LineSegment & { level: number })[] = [];
  const mirrored = levels && end > start ? bidi.getMirroredCharactersMap(paragraph, levels, start, end - 1) : null;
  for (let i = firstPieceEndingAfter(pieces, start); i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (piece.start >= end) break;
    const from = Math.max(start, piece.start);
    const to = Math.min(end, piece.end);
    const original = paragraph.slice(from, to);
    const rtl = piece.level % 2 === 1;
    let text = original;
    if (rtl && mirrored && mirrored.size > 0) {
      text = [...original].map((char, i) => mirrored.get(from + i) ?? char).join('');
    }
    const strongRtl = wholeRun(piece.script, text);
    // Right-to-left text without a right-to-left letter (brackets, dashes) is not reversed by the
    // shaper: reverse it here.
    if (rtl && !strongRtl)
      text = [...graphemes.segment(text)]
        .map((g) => g.segment)
        .reverse()
        .join('');
    const actual = !piece.covered || reordersGlyphs(original);
    logical.push({
      text,
      script: piece.script,
      bold,
      rtl: rtl && strongRtl,
      width: measure(piece.script, bold, text, size),
      level: piece.level,
      ...(actual ? { actualText: original } : {}),
    });
  }
  // Unicode bidi rule L2: from the highest level down to the lowest odd one, reverse every run of
  // segments at that level or higher.
  const maxLevel = Math.max(0, ...logical.map((segment) => segment.level));
  const minOdd = Math.min(...logical.map((segment) => (segment.level % 2 === 1 ? segment.level : Infinity)));
  for (let level = maxLevel; level >= minOdd && level > 0; level--) {
    for (let i = 0; i < logical.length;) {
      if (logical[i]!.level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < logical.length && logical[j]!.level >= level) j++;
      const reversed = logical.slice(i, j).reverse();
      logical.splice(i, j - i, ...reversed);
      i = j;
    }
  }
  const segments = logical.map(({ level: _level, ...segment }) => segment);
  return { segments, width: segments.reduce((total, segment) => total + segment.width, 0), rtl };
}

/**
 * Widths of text per point of font size: its longest paragraph on one line, and its longest
 * unbreakable word (what a table column needs at least).
 */
export function textMetrics(
  text: string,
  bold = false,
  measure: Measure = defaultMeasure,
  coverage: Coverage = covers,
): { longestLine: number; longestWord: number } {
  let longestLine = 0;
  let longestWord = 0;
  for (const paragraph of normalizeText(text).split('\n')) {
    if (paragraph === '') continue;
    const runs = splitByScript(paragraph, coverage);
    const bounds = [0, ...breakOpportunities(paragraph), paragraph.length];
    let line = 0;
    let r = 0;
    for (let w = 0; w + 1 < bounds.length; w++) {
      const start = bounds[w]!;
      const end = bounds[w + 1]!;
      let core = end;
      while (core > start && isSpace(paragraph[core - 1]!)) core--;
      let word = 0;
      let trailing = 0;
      while (r < runs.length && runs[r]!.start + runs[r]!.text.length <= start) r++;
      for (let i = r; i < runs.length; i++) {
        const run = runs[i]!;
        const runEnd = run.start + run.text.length;
        if (run.start >= end) break;
        const from = Math.max(start, run.start);
        if (core > from) word += measure(run.script, bold, paragraph.slice(from, Math.min(core, runEnd)), 1);
        if (runEnd > core && end > Math.max(core, run.start))
          trailing += measure(run.script, bold, paragraph.slice(Math.max(core, run.start), Math.min(end, runEnd)), 1);
      }
      longestWord = Math.max(longestWord, word);
      line += word + trailing;
    }
    longestLine = Math.max(longestLine, line);
  }
  return { longestLine, longestWord };
}
