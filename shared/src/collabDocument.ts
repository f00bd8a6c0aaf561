import * as Y from 'yjs';
import type { Answer, Step, StepAnswers, TableAnswer } from './questionBank.ts';
import { questionById } from './answers.ts';

/**
 * The wire contract of a step's collaborative document (docs/collaboration.md): a root Y.Map
 * `answers` keyed by question id (text and textarea as Y.Text so concurrent typing merges by
 * character; tables as a Y.Map { headers: Y.Array<string>, rows: Y.Array<Y.Map<cell>> } so rows
 * can be added, edited and removed concurrently; yes/no, checkbox and select as plain values) and
 * a root Y.Map `meta` holding `completed`.
 */
export const ANSWERS_MAP = 'answers';
export const META_MAP = 'meta';

export function collabDocumentName(formId: string, stepKey: string): string {
  return `plan:${formId}:step:${stepKey}`;
}

export function parseCollabDocumentName(name: string): { formId: string; stepKey: string } | null {
  const match = /^plan:([0-9a-f]{24}):step:([a-zA-Z][a-zA-Z0-9]{0,63})$/.exec(name);
  return match ? { formId: match[1]!, stepKey: match[2]! } : null;
}

function tableOf(map: Y.Map<unknown>): TableAnswer {
  const headers = (map.get('headers') as Y.Array<string> | undefined)?.toArray() ?? [];
  const rows = ((map.get('rows') as Y.Array<Y.Map<string>> | undefined)?.toArray() ?? []).map((row) =>
    headers.map((_header, column) => row.get(String(column)) ?? ''),
  );
  return { headers, rows };
}

/** The plain answers a document holds. */
export function readAnswers(doc: Y.Doc): StepAnswers {
  const answers: StepAnswers = {};
  doc.getMap(ANSWERS_MAP).forEach((value, questionId) => {
    if (value instanceof Y.Text) answers[questionId] = value.toString();
    else if (value instanceof Y.Map) answers[questionId] = tableOf(value as Y.Map<unknown>);
    else answers[questionId] = value as Answer;
  });
  return answers;
}

/** Replaces only the changed middle of a text, so concurrent edits elsewhere in it survive. */
function updateText(text: Y.Text, next: string): void {
  const current = text.toString();
  if (current === next) return;
  let start = 0;
  while (start < current.length && start < next.length && current[start] === next[start]) start++;
  let end = 0;
  while (end < current.length - start && end < next.length - start && current[current.length - 1 - end] === next[next.length - 1 - end]) end++;
  text.delete(start, current.length - start - end);
  text.insert(start, next.slice(start, next.length - end));
}

function newRow(cells: string[]): Y.Map<string> {
  const row = new Y.Map<string>();
  cells.forEach((cell, column) => row.set(String(column), cell));
  return row;
}

function updateTable(map: Y.Map<unknown>, next: TableAnswer): void {
  let headers = map.get('headers') as Y.Array<string> | undefined;
  if (!headers) map.set('headers', (headers = new Y.Array<string>()));
  if (JSON.stringify(headers.toArray()) !== JSON.stringify(next.headers)) {
    headers.delete(0, headers.length);
    headers.insert(0, next.headers);
  }
  let rows = map.get('rows') as Y.Array<Y.Map<string>> | undefined;
  if (!rows) map.set('rows', (rows = new Y.Array<Y.Map<string>>()));
  next.rows.forEach((cells, index) => {
    const row = rows.get(index);
    if (!row) return rows.push([newRow(cells)]);
    cells.forEach((cell, column) => {
      if ((row.get(String(column)) ?? '') !== cell) row.set(String(column), cell);
    });
    for (const key of [...row.keys()]) if (Number(key) >= cells.length) row.delete(key);
  });
  if (rows.length > next.rows.length) rows.delete(next.rows.length, rows.length - next.rows.length);
}

/**
 * Writes answers into a document with the smallest change per question: a text's changed middle,
 * a table's changed cells and rows, a plain value only when it differs.
 */
export function writeAnswers(doc: Y.Doc, step: Step, answers: StepAnswers, origin?: unknown): void {
  const map = doc.getMap(ANSWERS_MAP);
  doc.transact(() => {
    for (const [questionId, answer] of Object.entries(answers)) {
      const type = questionById(step, questionId)?.type;
      if (type === 'text' || type === 'textarea') {
        let text = map.get(questionId);
        if (!(text instanceof Y.Text)) map.set(questionId, (text = new Y.Text()));
        updateText(text as Y.Text, typeof answer === 'string' ? answer : '');
      } else if (type === 'table') {
        if (answer === null || typeof answer !== 'object') {
          if (map.has(questionId)) map.delete(questionId);
          continue;
        }
        let table = map.get(questionId);
        if (!(table instanceof Y.Map)) map.set(questionId, (table = new Y.Map()));
        updateTable(table as Y.Map<unknown>, answer);
      } else if (map.get(questionId) !== answer) {
        if (answer === null) map.delete(questionId);
        else map.set(questionId, answer);
      }
    }
  }, origin);
}

export function writeCompleted(doc: Y.Doc, completed: boolean, origin?: unknown): void {
  const meta = doc.getMap(META_MAP);
  if (meta.get('completed') !== completed) doc.transact(() => meta.set('completed', completed), origin);
}

/** A fresh document holding the stored answers, encoded as one update. */
export function seedDocumentState(step: Step, answers: StepAnswers, completed: boolean): Uint8Array {
  const doc = new Y.Doc();
  writeAnswers(doc, step, answers);
  writeCompleted(doc, completed);
  const state = Y.encodeStateAsUpdate(doc);
  doc.destroy();
  return state;
}

/**
 * The server's word that a document is stored: a stateless message carrying the state vector of
 * what was stored, sent after each store and to each connection as it opens. A client whose own
 * state vector it covers knows that everything it shows is saved.
 */
export function storedMessage(stateVector: Uint8Array): string {
  return JSON.stringify({ stored: btoa(String.fromCharCode(...stateVector)) });
}

/** The state vector of a `storedMessage`, or null for any other stateless payload. */
export function parseStoredMessage(payload: string): Uint8Array | null {
  try {
    const message = JSON.parse(payload) as { stored?: unknown };
    if (typeof message.stored !== 'string') return null;
    return Uint8Array.from(atob(message.stored), (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Whether a stored state vector holds every change of `doc` (a client's view is all saved). */
export function storedCovers(stored: Uint8Array, doc: Y.Doc): boolean {
  const storedClocks = Y.decodeStateVector(stored);
  for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(doc))) if ((storedClocks.get(client) ?? 0) < clock) return false;
  return true;
}
