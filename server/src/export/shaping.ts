/**
 * Shaped glyph runs, cached for the whole process: shaping a word with a face's layout tables costs
 * tens of microseconds, and the same words (question titles, intros, names) come back in every
 * export, so each is shaped once and both measuring and drawing read the cache.
 */
import { face, faceName } from './fonts.ts';
import type { Script } from './scripts.ts';

/** A shaped run in thousandths of the font size, glyphs in drawing order. */
export interface ShapedRun {
  glyphIds: number[];
  /** The glyph's own advance (what the PDF font's width table says). */
  advanceWidths: number[];
  /** The advance after shaping (kerning, marks). */
  xAdvances: number[];
  xOffsets: number[];
  yOffsets: number[];
  codePoints: number[][];
  width: number;
}

const cache = new Map<string, ShapedRun>();
const CACHE_LIMIT = 100_000;

function shapeOnce(script: Script, bold: boolean, text: string): ShapedRun {
  const key = `${faceName(script, bold)}\u0000${text}`;
  let run = cache.get(key);
  if (!run) {
    const font = face(script, bold);
    const scale = 1000 / font.unitsPerEm;
    const layout = font.layout(text);
    run = { glyphIds: [], advanceWidths: [], xAdvances: [], xOffsets: [], yOffsets: [], codePoints: [], width: 0 };
    for (let i = 0; i < layout.glyphs.length; i++) {
      const glyph = layout.glyphs[i]!;
      const position = layout.positions[i]!;
      run.glyphIds.push(glyph.id);
      run.advanceWidths.push(glyph.advanceWidth * scale);
      run.xAdvances.push(position.xAdvance * scale);
      run.xOffsets.push(position.xOffset * scale);
      run.yOffsets.push(position.yOffset * scale);
      run.codePoints.push(glyph.codePoints);
      run.width += position.xAdvance * scale;
    }
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, run);
  }
  return run;
}

/**
 * Shapes text in a script's face. Right-to-left text is shaped as one run (the shaper reverses it);
 * other text word by word, each word with the spaces after it, so words are shared across texts.
 */
export function shape(script: Script, bold: boolean, text: string, wholeRun: boolean): ShapedRun {
  if (wholeRun) return shapeOnce(script, bold, text);
  const words = text.match(/[^ ]*(?: +|$)/g)?.filter((word) => word !== '') ?? [];
  if (words.length <= 1) return shapeOnce(script, bold, text);
  const joined: ShapedRun = { glyphIds: [], advanceWidths: [], xAdvances: [], xOffsets: [], yOffsets: [], codePoints: [], width: 0 };
  for (const word of words) {
    const run = shapeOnce(script, bold, word);
    joined.glyphIds.push(...run.glyphIds);
    joined.advanceWidths.push(...run.advanceWidths);
    joined.xAdvances.push(...run.xAdvances);
    joined.xOffsets.push(...run.xOffsets);
    joined.yOffsets.push(...run.yOffsets);
    joined.codePoints.push(...run.codePoints);
    joined.width += run.width;
  }
  return joined;
}

/** Width of text in thousandths of the font size, as `shape` sets it. */
export function advanceOf(script: Script, bold: boolean, text: string, wholeRun: boolean): number {
  if (wholeRun) return shapeOnce(script, bold, text).width;
  let width = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    // A word ends after its last trailing space.
    if (i === text.length || (text[i] !== ' ' && i > 0 && text[i - 1] === ' ')) {
      if (i > start) width += shapeOnce(script, bold, text.slice(start, i)).width;
      start = i;
    }
  }
  return width;
}
