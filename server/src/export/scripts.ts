/**
 * Splits text into runs that one font can set. A PDF text run uses one font, and no single font
 * covers Latin, Chinese, Korean, Arabic, Hebrew and Bengali, so each run gets the font of its script.
 */

/** The scripts the export fonts cover; `latin` also stands for Greek, Cyrillic, Vietnamese and Devanagari. */
export type Script = 'latin' | 'cjk' | 'korean' | 'arabic' | 'hebrew' | 'bengali';

/** Right-to-left scripts: their runs are shaped as a whole and reversed by the shaper. */
export const RTL_SCRIPTS: ReadonlySet<Script> = new Set(['arabic', 'hebrew']);

export interface ScriptRun {
  text: string;
  script: Script;
  /** Index of the run's first UTF-16 unit in the input. */
  start: number;
  /** False when no export font has a glyph for some character of the run (it prints as a box). */
  covered: boolean;
}

/** Whether the font of `script` has a glyph for `codePoint`. */
export type Coverage = (script: Script, codePoint: number) => boolean;

const inRange = (cp: number, ranges: readonly (readonly [number, number])[]) => ranges.some(([from, to]) => cp >= from && cp <= to);

const ARABIC: readonly (readonly [number, number])[] = [
  [0x0600, 0x06ff],
  [0x0750, 0x077f],
  [0x0870, 0x08ff],
  [0xfb50, 0xfdff],
  [0xfe70, 0xfeff],
];
const HEBREW: readonly (readonly [number, number])[] = [
  [0x0590, 0x05ff],
  [0xfb1d, 0xfb4f],
];
const BENGALI: readonly (readonly [number, number])[] = [[0x0980, 0x09ff]];
const KOREAN: readonly (readonly [number, number])[] = [
  [0x1100, 0x11ff],
  [0x3130, 0x318f],
  [0xa960, 0xa97f],
  [0xac00, 0xd7ff],
];
const CJK: readonly (readonly [number, number])[] = [
  [0x2e80, 0x2fff],
  [0x3040, 0x312f],
  [0x3190, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0x20000, 0x3134f],
];
/** Characters that belong to the run they sit in: combining marks, joiners, variation selectors. */
const INHERITED: readonly (readonly [number, number])[] = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200d],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xe0100, 0xe01ef],
];
/** Spaces, digits, punctuation and symbols: they join the surrounding run when its font has them. */
const NEUTRAL: readonly (readonly [number, number])[] = [
  [0x0000, 0x0040],
  [0x005b, 0x0060],
  [0x007b, 0x00bf],
  [0x00d7, 0x00d7],
  [0x00f7, 0x00f7],
  [0x2000, 0x200a],
  [0x200e, 0x2bff],
  [0x3000, 0x303f],
  [0xfe10, 0xfe1f],
  [0xff00, 0xffef],
];

type CharClass = Script | 'neutral' | 'inherited';

/** The script a code point belongs to, or `neutral` / `inherited` for characters of no script. */
export function classify(cp: number): CharClass {
  if (cp < 0x0080) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ? 'latin' : 'neutral';
  if (inRange(cp, INHERITED)) return 'inherited';
  if (inRange(cp, ARABIC)) return 'arabic';
  if (inRange(cp, HEBREW)) return 'hebrew';
  if (inRange(cp, BENGALI)) return 'bengali';
  if (inRange(cp, KOREAN)) return 'korean';
  if (inRange(cp, CJK)) return 'cjk';
  if (inRange(cp, NEUTRAL)) return 'neutral';
  return 'latin';
}

/** Fonts tried, in order, for a character its own script's font lacks. */
const FALLBACK_ORDER: readonly Script[] = ['latin', 'cjk', 'korean', 'arabic', 'hebrew', 'bengali'];

/**
 * Splits `text` into maximal runs of one script. Neutral characters (spaces, digits, punctuation)
 * stay in the run before them when its font has them (unless that run is right to left and the next
 * is not), else join the next run, else fall back to the first font that has them; combining marks
 * and joiners always stay with the character before them.
 */
export function splitByScript(text: string, covers: Coverage = () => true): ScriptRun[] {
  // Printable ASCII, the common case, is Latin (every Latin face has it).
  if (/^[\x20-\x7e]*$/.test(text)) return text === '' ? [] : [{ text, script: 'latin', start: 0, covered: true }];
  const chars: { cp: number; start: number; cls: CharClass }[] = [];
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    chars.push({ cp, start: i, cls: classify(cp) });
    i += cp > 0xffff ? 2 : 1;
  }
  const assigned: Script[] = new Array(chars.length);
  const covered: boolean[] = new Array(chars.length).fill(true);

  const fallback = (cp: number, preferred: Script): Script => {
    if (covers(preferred, cp)) return preferred;
    return FALLBACK_ORDER.find((script) => covers(script, cp)) ?? preferred;
  };

  // Strong characters first: their own script's font, or the first font that has them.
  for (const [index, char] of chars.entries()) {
    if (char.cls === 'neutral' || char.cls === 'inherited') continue;
    const script = fallback(char.cp, char.cls);
    assigned[index] = script;
    covered[index] = covers(script, char.cp);
  }
  // Neutral and inherited characters: the run before, else the run after, else any font.
  let nextStrong: Script | undefined;
  const nextStrongOf: (Script | undefined)[] = new Array(chars.length);
  for (let index = chars.length - 1; index >= 0; index--) {
    nextStrongOf[index] = nextStrong;
    const cls = chars[index]!.cls;
    if (cls !== 'neutral' && cls !== 'inherited') nextStrong = assigned[index];
  }
  for (const [index, char] of chars.entries()) {
    if (char.cls !== 'neutral' && char.cls !== 'inherited') continue;
    const previous = index > 0 ? assigned[index - 1] : undefined;
    if (char.cls === 'inherited' && previous) {
      assigned[index] = previous;
      continue;
    }
    const next = nextStrongOf[index];
    let script: Script | undefined;
    // Punctuation and spaces between right-to-left text and what follows it go with what follows:
    // text extraction reads a run of one font as one word, and ")" would join the Arabic word.
    if (previous && next && RTL_SCRIPTS.has(previous) && !RTL_SCRIPTS.has(next) && covers(next, char.cp)) script = next;
    else if (previous && covers(previous, char.cp)) script = previous;
    else if (next && covers(next, char.cp)) script = next;
    else script = fallback(char.cp, 'latin');
    assigned[index] = script;
    covered[index] = char.cls === 'inherited' || covers(script, char.cp);
  }

  const runs: ScriptRun[] = [];
  for (const [index, char] of chars.entries()) {
    const script = assigned[index]!;
    const last = runs[runs.length - 1];
    const end = index + 1 < chars.length ? chars[index + 1]!.start : text.length;
    // Characters no font has form runs of their own, so that only they are marked.
    if (last && last.script === script && last.covered === covered[index]) {
      last.text += text.slice(char.start, end);
    } else {
      runs.push({ text: text.slice(char.start, end), script, start: char.start, covered: covered[index]! });
    }
  }
  return runs;
}

/**
 * True when shaping may draw glyphs out of text order (an Indic vowel sign drawn before its
 * consonant: Bengali, Devanagari and their neighbours, Myanmar, Khmer), so the glyphs alone do not
 * give the text back in order and the run must carry its text (ActualText).
 */
export function reordersGlyphs(text: string): boolean {
  return /[\u0900-\u0dff\u1000-\u109f\u1780-\u17ff]/.test(text);
}

/** True when the text has a right-to-left letter (Arabic or Hebrew). */
export function hasRtl(text: string): boolean {
  return /[\u0590-\u05ff\u0600-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/.test(text);
}
