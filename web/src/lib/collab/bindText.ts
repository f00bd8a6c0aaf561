import * as Y from 'yjs';

type TextField = HTMLInputElement | HTMLTextAreaElement;

/** A pause this long ends an undo step, as in Google Docs: one Ctrl+Z takes back one burst of typing. */
export const UNDO_PAUSE_MS = 800;

export interface BindTextOptions {
  /** Told the caret and selection after every change of them (for remote carets), null when the field has no Y.Text yet. */
  onSelection?: (text: Y.Text, anchor: number, head: number) => void;
}

/**
 * Binds one text answer (a Y.Text under `map[key]`: an answer, or a table cell) to a native input
 * or textarea.
 *
 * - Local typing becomes the smallest insert/delete on the Y.Text, so two people typing in one
 *   answer merge character by character. Remote changes rewrite the field's value and keep the
 *   caret and selection where they were, through Y.js relative positions taken just before each
 *   remote transaction (associated with the character before them, so text someone else types at
 *   your caret goes after it).
 * - Undo and redo (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y, the browser's Edit menu) go to a Y.UndoManager
 *   that tracks only this binding's own edits: a colleague's text is never taken back, and the
 *   browser's own undo stack, which knows nothing of remote changes, is never used.
 * - Composed input (IME, dead keys, Android keyboards) is applied once, when the composition
 *   ends, at the place it began: nothing is sent while composing, and remote changes that arrive
 *   meanwhile wait (rewriting the field would break the composition) and are shown right after.
 * - The Y.Text is created on the first keystroke when the answer has none yet; if another person
 *   created one at the same moment and theirs wins (Y.js keeps one of two concurrent map
 *   entries), the binding follows the winner and adds what was typed into the losing copy.
 */
export function bindText(field: TextField, map: Y.Map<unknown>, key: string, options: BindTextOptions = {}): () => void {
  const doc = map.doc!;
  const origin = { binding: key };
  let text: Y.Text | null = null;
  let undo: Y.UndoManager | null = null;
  let selection: [Y.RelativePosition, Y.RelativePosition] | null = null;
  /**
   * While composing: where the composition began, the last character of the selection it replaces
   * (none without a selection: then text a colleague types at the same place is never removed), and
   * the value it began from.
   */
  let composition: { from: Y.RelativePosition; lastReplaced: Y.RelativePosition | null; start: number; end: number; before: string } | null = null;

  /** This binding's own edits of a text, and nobody else's. */
  const undoOf = (target: Y.Text) => new Y.UndoManager(target, { trackedOrigins: new Set([origin]), captureTimeout: UNDO_PAUSE_MS });

  const current = () => {
    const value = map.get(key);
    return value instanceof Y.Text ? value : null;
  };

  // The field's own document (not the global one): the binding runs wherever the field lives.
  const focused = () => field.ownerDocument.activeElement === field;

  const absolute = (position: Y.RelativePosition) => Y.createAbsolutePositionFromRelativePosition(position, doc)?.index ?? null;

  const reportSelection = () => {
    if (text && focused()) options.onSelection?.(text, field.selectionStart ?? 0, field.selectionEnd ?? 0);
  };

  const render = (caret?: number) => {
    if (composition) return;
    const value = text?.toString() ?? '';
    if (field.value === value) return;
    const hadFocus = focused();
    field.value = value;
    if (!hadFocus) return;
    if (caret !== undefined) field.setSelectionRange(caret, caret);
    else if (selection && text) {
      const start = absolute(selection[0]);
      const end = absolute(selection[1]);
      if (start !== null && end !== null) field.setSelectionRange(start, end);
    }
  };

  const onTextChange = (event: Y.YTextEvent, transaction: Y.Transaction) => {
    if (transaction.origin === origin) return;
    // Undo and redo put the caret where they changed the text, as an editor does.
    if (transaction.origin === undo) {
      let index = 0;
      let caret = 0;
      for (const op of event.delta) {
        if (op.retain) index += op.retain;
        else if (typeof op.insert === 'string') caret = index += op.insert.length;
        else if (op.delete) caret = index;
      }
      render(caret);
    } else render();
    reportSelection();
  };

  const follow = () => {
    const next = current();
    if (next === text) return;
    const typedIntoLoser = text ? field.value : '';
    text?.unobserve(onTextChange);
    undo?.destroy();
    text = next;
    undo = text ? undoOf(text) : null;
    text?.observe(onTextChange);
    if (text && typedIntoLoser && !text.toString().includes(typedIntoLoser)) {
      const winner = text;
      // After the remote transaction that replaced it: a change of our own, saved and sent as usual.
      queueMicrotask(() => doc.transact(() => winner.insert(winner.length, winner.length ? `\n${typedIntoLoser}` : typedIntoLoser), origin));
    }
    render();
  };

  const beforeTransaction = (transaction: Y.Transaction) => {
    if (transaction.origin === origin || !text || !focused()) return;
    const start = field.selectionStart ?? 0;
    const end = field.selectionEnd ?? start;
    selection = [Y.createRelativePositionFromTypeIndex(text, start, -1), Y.createRelativePositionFromTypeIndex(text, end, -1)];
  };

  const onMapChange = (event: Y.YMapEvent<unknown>) => {
    if (event.keysChanged.has(key)) follow();
  };

  const ensureText = (): Y.Text => {
    if (!text) {
      text = new Y.Text();
      map.set(key, text);
      undo = undoOf(text);
      text.observe(onTextChange);
    }
    return text;
  };

  const onInput = (event: Event) => {
    // Composed text is applied once, when the composition ends.
    if (composition || (event as InputEvent).isComposing) return;
    const next = field.value;
    doc.transact(() => applyDiff(ensureText(), next, field.selectionEnd), origin);
    reportSelection();
  };

  const onCompositionStart = () => {
    const start = field.selectionStart ?? field.value.length;
    const end = field.selectionEnd ?? start;
    doc.transact(() => ensureText(), origin);
    composition = {
      from: Y.createRelativePositionFromTypeIndex(text!, start, -1),
      lastReplaced: end > start ? Y.createRelativePositionFromTypeIndex(text!, end, -1) : null,
      start,
      end,
      before: field.value,
    };
  };

  const onCompositionEnd = () => {
    const began = composition;
    if (!began) return;
    composition = null;
    // What the composition wrote: the field now reads before[0, start) + composed + before[end, …).
    const composed = field.value.slice(began.start, field.value.length - (began.before.length - began.end));
    const from = absolute(began.from) ?? 0;
    const to = began.lastReplaced ? Math.max(absolute(began.lastReplaced) ?? from, from) : from;
    doc.transact(() => {
      const target = ensureText();
      if (to > from) target.delete(from, to - from);
      if (composed) target.insert(from, composed);
    }, origin);
    undo?.stopCapturing();
    render(from + composed.length);
    reportSelection();
  };

  const onKeyDown = (keyEvent: Event) => {
    const event = keyEvent as KeyboardEvent;
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    const letter = event.key.toLowerCase();
    if (letter === 'z') runHistory(event, event.shiftKey ? 'redo' : 'undo');
    else if (letter === 'y' && !event.shiftKey) runHistory(event, 'redo');
  };

  // The browser's Edit menu and other routes to its undo (also when no key was pressed).
  const onBeforeInput = (event: Event) => {
    const { inputType } = event as InputEvent;
    if (inputType === 'historyUndo') runHistory(event, 'undo');
    else if (inputType === 'historyRedo') runHistory(event, 'redo');
  };

  const runHistory = (event: Event, direction: 'undo' | 'redo') => {
    event.preventDefault();
    if (field.readOnly || composition || !undo) return;
    if (direction === 'undo') undo.undo();
    else undo.redo();
  };

  follow();
  // One signal takes every listener off again.
  const listening = new AbortController();
  const listen = (type: string, listener: (event: Event) => void) => field.addEventListener(type, listener, { signal: listening.signal });
  listen('input', onInput);
  listen('compositionstart', onCompositionStart);
  listen('compositionend', onCompositionEnd);
  listen('keydown', onKeyDown);
  listen('beforeinput', onBeforeInput);
  for (const type of ['select', 'keyup', 'pointerup', 'focus']) listen(type, reportSelection);
  map.observe(onMapChange);
  doc.on('beforeTransaction', beforeTransaction);
  return () => {
    listening.abort();
    map.unobserve(onMapChange);
    doc.off('beforeTransaction', beforeTransaction);
    text?.unobserve(onTextChange);
    undo?.destroy();
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
