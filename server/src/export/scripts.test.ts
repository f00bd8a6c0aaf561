import { describe, expect, it } from 'vitest';
import { classify, hasRtl, reordersGlyphs, splitByScript, type Coverage } from './scripts.ts';
import { covers } from './fonts.ts';

const runsOf = (text: string, coverage?: Coverage) => splitByScript(text, coverage).map(({ text, script }) => [script, text]);

describe('classify', () => {
  it('knows the scripts of the export fonts', () => {
    expect(classify('a'.codePointAt(0)!)).toBe('latin');
    expect(classify('ñ'.codePointAt(0)!)).toBe('latin');
    expect(classify('Ж'.codePointAt(0)!)).toBe('latin');
    expect(classify('王'.codePointAt(0)!)).toBe('cjk');
    expect(classify('カ'.codePointAt(0)!)).toBe('cjk');
    expect(classify('𠀀'.codePointAt(0)!)).toBe('cjk');
    expect(classify('한'.codePointAt(0)!)).toBe('korean');
    expect(classify('ম'.codePointAt(0)!)).toBe('bengali');
    expect(classify('أ'.codePointAt(0)!)).toBe('arabic');
    expect(classify('ש'.codePointAt(0)!)).toBe('hebrew');
    expect(classify(' '.codePointAt(0)!)).toBe('neutral');
    expect(classify('7'.codePointAt(0)!)).toBe('neutral');
    expect(classify('，'.codePointAt(0)!)).toBe('neutral');
    expect(classify('\u0301'.codePointAt(0)!)).toBe('inherited');
    expect(classify('\u200d'.codePointAt(0)!)).toBe('inherited');
  });
});

describe('splitByScript', () => {
  it('keeps printable ASCII in one Latin run', () => {
    expect(runsOf('Hello, world (2025)!')).toEqual([['latin', 'Hello, world (2025)!']]);
    expect(splitByScript('')).toEqual([]);
  });

  it('splits text in four scripts into runs, neutrals joining the run before them', () => {
    expect(runsOf('Señora Núñez: 例如 王小明, যেমন রহিম; مثلا أحمد')).toEqual([
      ['latin', 'Señora Núñez: '],
      ['cjk', '例如 王小明, '],
      ['bengali', 'যেমন রহিম; '],
      ['arabic', 'مثلا أحمد'],
    ]);
  });

  it('gives punctuation after right-to-left text to the text that follows', () => {
    expect(runsOf('(مثلا أحمد). Next')).toEqual([
      ['arabic', '(مثلا أحمد'],
      ['latin', '). Next'],
    ]);
    expect(runsOf('Name (مثلا أحمد) ok')).toEqual([
      ['latin', 'Name ('],
      ['arabic', 'مثلا أحمد'],
      ['latin', ') ok'],
    ]);
  });

  it('starts with the first strong script when the text starts with neutrals', () => {
    expect(runsOf('12. 王小明')).toEqual([['cjk', '12. 王小明']]);
  });

  it('keeps combining marks and joiners with the character before them', () => {
    expect(runsOf('Jose\u0301 ক্\u200dষ')).toEqual([
      ['latin', 'Jose\u0301 '],
      ['bengali', 'ক্\u200dষ'],
    ]);
  });

  it('loses no character, surrogate pairs included', () => {
    const text = 'A 𠀀 b 😀 ج ✓ ক\n';
    expect(
      splitByScript(text, covers)
        .map((run) => run.text)
        .join(''),
    ).toBe(text);
    for (const run of splitByScript(text, covers)) expect(text.slice(run.start, run.start + run.text.length)).toBe(run.text);
  });

  it('moves a neutral the previous font lacks to the next run, else to a font that has it', () => {
    const coverage: Coverage = (script, cp) => !(script === 'arabic' && cp === 0x2014);
    expect(runsOf('مثلا—أحمد', coverage)).toEqual([
      ['arabic', 'مثلا'],
      ['latin', '—'],
      ['arabic', 'أحمد'],
    ]);
  });

  it('sets a letter its script font lacks in the first font that has it, and marks uncovered text', () => {
    const coverage: Coverage = (script, cp) => script === 'latin' || (script === 'cjk' && cp !== 0x4e00);
    expect(runsOf('王一', coverage)).toEqual([
      ['cjk', '王'],
      ['latin', '一'],
    ]);
    // A character no font has gets a run of its own, so only it is marked.
    const real = splitByScript('emoji 😀 ok', covers);
    expect(real.map(({ text, covered }) => [text, covered])).toEqual([
      ['emoji ', true],
      ['😀', false],
      [' ok', true],
    ]);
  });
});

describe('real font coverage', () => {
  it('covers Spanish, Chinese, Korean, Bengali, Arabic, Urdu, Hebrew, Russian and Haitian Creole text', () => {
    const samples = ['Señora Núñez', '例如 王小明 這是繁體', '한국어 학교', 'যেমন রহিম', 'مثلا أحمد', 'اردو ٹ ڈ', 'שלום', 'Русский', 'Kreyòl ayisyen'];
    for (const sample of samples) {
      for (const run of splitByScript(sample, covers)) expect(run.covered, `${sample}: ${run.text}`).toBe(true);
    }
  });
});

describe('hasRtl and reordersGlyphs', () => {
  it('detects right-to-left letters and scripts whose shaping reorders glyphs', () => {
    expect(hasRtl('abc')).toBe(false);
    expect(hasRtl('abc أحمد')).toBe(true);
    expect(hasRtl('שלום')).toBe(true);
    expect(reordersGlyphs('যেমন')).toBe(true);
    expect(reordersGlyphs('हिन्दी')).toBe(true);
    expect(reordersGlyphs('أحمد 王')).toBe(false);
  });
});
