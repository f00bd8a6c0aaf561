import { describe, expect, it } from 'vitest';
import { breakOpportunities, layoutText, normalizeText, textMetrics, type LaidLine, type Measure } from './textLayout.ts';

/** Every character 1 point wide at size 1: line widths are character counts. */
const monospace: Measure = (_script, _bold, text, size) => [...text].length * size;
const allCovered = () => true;
const layout = (text: string, width: number) => layoutText(text, { size: 1, width, measure: monospace, coverage: allCovered });
/** A line's characters in text order (segments are in drawing order; right-to-left ones reversed). */
const lineText = (line: LaidLine) => line.segments.map((segment) => segment.actualText ?? segment.text).join('');

describe('normalizeText', () => {
  it('keeps text and line breaks, turns other line ends, tabs and control characters into printable text', () => {
    expect(normalizeText('a\r\nb\rc\u2028d')).toBe('a\nb\nc\nd');
    expect(normalizeText('a\tb')).toBe('a    b');
    expect(normalizeText('a\u0000b\u0007c')).toBe('a b c');
    expect(normalizeText('x\ud800y')).toBe('x\ufffdy');
    expect(normalizeText('ñ 王 😀 أحمد')).toBe('ñ 王 😀 أحمد');
  });
});

describe('breakOpportunities', () => {
  it('breaks after spaces and between Chinese characters, never before closing punctuation', () => {
    expect(breakOpportunities('ab cd  ef')).toEqual([3, 7]);
    expect(breakOpportunities('王小明。你好')).toEqual([1, 2, 4, 5]);
    expect(breakOpportunities('王「小」明')).toEqual([1, 4]);
  });
});

describe('layoutText', () => {
  it('wraps at spaces to the width and drops only the spaces at line ends', () => {
    const lines = layout('the quick brown fox jumps', 10);
    expect(lines.map(lineText)).toEqual(['the quick', 'brown fox', 'jumps']);
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(10);
  });

  it('keeps line breaks and blank lines', () => {
    const lines = layout('one\n\ntwo', 20);
    expect(lines.map(lineText)).toEqual(['one', '', 'two']);
    expect(lines[1]!.segments).toEqual([]);
  });

  it('breaks a word longer than the line between characters', () => {
    const lines = layout('abcdefghijkl mn', 5);
    expect(lines.map(lineText)).toEqual(['abcde', 'fghij', 'kl mn']);
  });

  it('breaks Chinese between characters', () => {
    expect(layout('例如王小明例如王小明', 4).map(lineText)).toEqual(['例如王小', '明例如王', '小明']);
  });

  it('loses no character of a 20,000-character text', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i} 王小明 যেমন مثلا أحمد sentence.`)
      .join(' ')
      .slice(0, 20_000);
    const lines = layout(text, 60);
    const joined = lines.map(lineText).join(' ');
    expect(joined.replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
    for (const line of lines) expect(line.width).toBeLessThanOrEqual(60);
  });

  it('draws a right-to-left run reversed by the shaper, in its place on a left-to-right line', () => {
    const [line] = layout('Name: مثلا أحمد and more', 100);
    expect(line!.rtl).toBe(false);
    const scripts = line!.segments.map((segment) => [segment.script, segment.text, segment.rtl]);
    expect(scripts).toEqual([
      ['latin', 'Name: ', false],
      ['arabic', 'مثلا أحمد', true],
      ['latin', ' and more', false],
    ]);
  });

  it('orders the runs of a right-to-left paragraph right to left, numbers left to right', () => {
    const [line] = layout('عدد 25 طالب', 100);
    expect(line!.rtl).toBe(true);
    // Drawing order (left to right): the last word first, the number unreversed, the first word last.
    const texts = line!.segments.map((segment) => segment.text.trim()).filter(Boolean);
    expect(texts).toEqual(['طالب', '25', 'عدد']);
    expect(line!.segments.find((segment) => segment.text.includes('25'))!.rtl).toBe(false);
  });

  it('mirrors brackets drawn right to left', () => {
    const [line] = layout('أحمد (مدير)', 100);
    const drawn = line!.segments.map((segment) => segment.text).join('');
    // Text order "(مدير)" inside a right-to-left paragraph: the shaper reverses the run, so the
    // brackets are handed over mirrored.
    expect(drawn).toContain(')مدير(');
  });

  it('marks Bengali and uncovered text to carry its text for extraction', () => {
    const [line] = layoutText('যেমন রহিম and 😀', { size: 10, width: 500 });
    const bengali = line!.segments.find((segment) => segment.script === 'bengali');
    expect(bengali?.actualText).toBe('যেমন রহিম ');
    expect(line!.segments.some((segment) => segment.actualText?.includes('😀'))).toBe(true);
    expect(line!.segments.find((segment) => segment.text.startsWith('and'))?.actualText).toBeUndefined();
  });

  it('measures with the real fonts: wider text takes more lines at a smaller width', () => {
    const text = 'Señora Núñez 例如 王小明 যেমন রহিম مثلا أحمد '.repeat(10);
    const wide = layoutText(text, { size: 10, width: 500 });
    const narrow = layoutText(text, { size: 10, width: 150 });
    expect(narrow.length).toBeGreaterThan(wide.length);
    for (const line of narrow) expect(line.width).toBeLessThanOrEqual(150 + 0.001);
  });
});

describe('textMetrics', () => {
  it('gives the longest line and the longest word per point of size', () => {
    expect(textMetrics('ab cdef\nxyz', false, monospace, allCovered)).toEqual({ longestLine: 7, longestWord: 4 });
    expect(textMetrics('', false, monospace, allCovered)).toEqual({ longestLine: 0, longestWord: 0 });
  });
});
