import * as Y from 'yjs';

type TextField = HTMLInputElement | HTMLTextAreaElement;

/**
 * Binds one text answer (a Y.Text under `answers[questionId]`) to a native input or textarea.
 *
 * Local typing becomes the smallest insert/delete on the Y.Text, so two people typing in one
 * answer merge character by character. Remote changes rewrite the field's value and keep the
 * caret and selection where they were, through Y.js relative positions taken just before each
 * remote transaction (associated with the character before them, so text someone else types at
 * your caret goes after it). The Y.Text is created on the first keystroke when the answer has
 * none yet; if another person created one at the same moment and theirs wins (Y.js keeps one
 * of two concurrent map entries), the binding follows the winner and adds what was typed into
 * the losing copy, so no keystroke is lost.
 */
export function bindText(field: TextField, answers: Y.Map<unknown>, questionId: string): () => void {
  const doc = answers.doc!;
  const origin = { binding: questionId };
  let text: Y.Text | null = null;
  let selection: [Y.RelativePosition, Y.RelativePosition] | null = null;

  const current = () => {
    const value = answers.get(questionId);
    return value instanceof Y.Text ? value : null;
  };

  const render = (restore: boolean) => {
    const value = text?.toString() ?? '';
    if (field.value === value) return;
    const focused = document.activeElement === field;
    field.value = value;
    if (restore && focused && selection && text) {
      const start = Y.createAbsolutePositionFromRelativePosition(selection[0], doc);
      const end = Y.createAbsolutePositionFromRelativePosition(selection[1], doc);
      if (start && end) field.setSelectionRange(start.index, end.index);
    }
  };

  const onTextChange = (_event: Y.YTextEvent, transaction: Y.Transaction) => {
    if (transaction.origin !== origin) render(true);
  };

  const follow = () => {
    const next = current();
    if (next === text) return;
    const typedIntoLoser = text ? field.value : '';
    text?.unobserve(onTextChange);
    text = next;
    text?.observe(onTextChange);
    if (text && typedIntoLoser && !text.toString().includes(typedIntoLoser)) {
      const winner = text;
      // After the remote transaction that replaced it: a change of our own, saved and sent as usual.
      queueMicrotask(() => doc.transact(() => winner.insert(winner.length, winner.length ? `\n${typedIntoLoser}` : typedIntoLoser)));
    }
    render(true);
  };

  const beforeTransaction = (transaction: Y.Transaction) => {
    if (transaction.origin === origin || !text || document.activeElement !== field) return;
    const start = field.selectionStart ?? 0;
    const end = field.selectionEnd ?? start;
    selection = [Y.createRelativePositionFromTypeIndex(text, start, -1), Y.createRelativePositionFromTypeIndex(text, end, -1)];
  };

  const onAnswersChange = (event: Y.YMapEvent<unknown>) => {
    if (event.keysChanged.has(questionId)) follow();
  };

  const onInput = () => {
    const next = field.value;
    doc.transact(() => {
      if (!text) {
        text = new Y.Text();
        answers.set(questionId, text);
        text.observe(onTextChange);
      }
      applyDiff(text, next, field.selectionEnd);
    }, origin);
  };

  follow();
  field.addEventListener('input', onInput);
  answers.observe(onAnswersChange);
  doc.on('beforeTransaction', beforeTransaction);
  return () => {
    field.removeEventListener('input', onInput);
    answers.unobserve(onAnswersChange);
    doc.off('beforeTransaction', beforeTransaction);
    text?.unobserve(onTextChange);
  };
}

/**
 * Turns the field's new value into one delete and one insert on the Y.Text: the changed middle
 * between the common prefix and suffix. The caret disambiguates repeated characters (typing "a"
 * into "aa" inserts where the caret is, not at the end).
 */
export function applyDiff(text: Y.Text, next: string, caret: number | null): void {
  const old = text.toString();
  if (old === next) return;
  const grown = Math.max(next.length - old.length, 0);
  let start = 0;
  const limit = Math.min(old.length, next.length);
  while (start < limit && old[start] === next[start]) start++;
  if (caret !== null) start = Math.min(start, Math.max(0, caret - grown));
  let end = 0;
  while (end < old.length - start && end < next.length - start && old[old.length - 1 - end] === next[next.length - 1 - end]) end++;
  const removed = old.length - start - end;
  if (removed > 0) text.delete(start, removed);
  const inserted = next.slice(start, next.length - end);
  if (inserted) text.insert(start, inserted);
}
