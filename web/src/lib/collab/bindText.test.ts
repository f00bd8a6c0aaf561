import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { applyDiff } from './bindText.ts';

function textOf(initial: string): Y.Text {
  const doc = new Y.Doc();
  const text = doc.getText('t');
  text.insert(0, initial);
  return text;
}

/** Every change as Y.js deltas, to check that only the changed middle is touched. */
function deltas(text: Y.Text, change: () => void): unknown[] {
  const seen: unknown[] = [];
  const observer = (event: Y.YTextEvent) => seen.push(event.delta);
  text.observe(observer);
  text.doc!.transact(change);
  text.unobserve(observer);
  return seen;
}

describe('applyDiff: a field’s new value as the smallest Y.Text change', () => {
  it('inserts at the caret, also among repeated characters', () => {
    const text = textOf('aa');
    // The caret (after the inserted character at index 1) says where the "a" went.
    expect(deltas(text, () => applyDiff(text, 'aaa', 2))).toEqual([[{ retain: 1 }, { insert: 'a' }]]);
    expect(text.toString()).toBe('aaa');
  });

  it('deletes and replaces only the changed middle', () => {
    const text = textOf('Families told us mornings are hard.');
    const [delta] = deltas(text, () => applyDiff(text, 'Families said mornings are hard.', 13)) as Record<string, unknown>[][];
    expect(delta).toHaveLength(3);
    expect(delta).toEqual(expect.arrayContaining([{ retain: 9 }, { delete: 7 }, { insert: 'said' }]));
    expect(text.toString()).toBe('Families said mornings are hard.');
  });

  it('keeps a concurrent edit elsewhere in the same answer', () => {
    const a = new Y.Doc();
    const b = new Y.Doc();
    a.getText('t').insert(0, 'Buses arrive late.');
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    applyDiff(a.getText('t'), 'Buses arrive late in winter.', 27);
    applyDiff(b.getText('t'), 'School buses arrive late.', 7);
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b));
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    expect(a.getText('t').toString()).toBe('School buses arrive late in winter.');
    expect(b.getText('t').toString()).toBe(a.getText('t').toString());
  });

  it('changes nothing when the value is the same', () => {
    const text = textOf('same');
    expect(deltas(text, () => applyDiff(text, 'same', 4))).toEqual([]);
  });
});
