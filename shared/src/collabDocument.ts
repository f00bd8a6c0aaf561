import * as Y from 'yjs';
import type { Answer, Step, StepAnswers, TableAnswer } from './questionBank.ts';
import { questionById } from './answers.ts';

/**
 * The wire contract of a step's collaborative document (docs/collaboration.md): a root Y.Map
 * `answers` keyed by question id (text and textarea as Y.Text so concurrent typing merges by
 * character; tables as a Y.Map { headers: Y.Array<string>, rows: Y.Array<Y.Map> }, each row with a
 * stable string `id` and its cells as Y.Text keyed by column index, so rows can be added, edited
 * and removed concurrently and a cell merges like an answer; yes/no, checkbox and select as plain
 * values) and a root Y.Map `meta` holding `completed`. Documents stored before rows had ids (plain
 * string cells) are read as well, and upgraded when they load (`upgradeTables`).
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

/** The key of a row's stable id in its Y.Map (cells are keyed by column index). */
export const ROW_ID = 'id';

/** A cell's text, whether a Y.Text or a plain string of a document from before row ids. */
const cellText = (value: unknown): string => (value instanceof Y.Text ? value.toString() : typeof value === 'string' ? value : '');

function tableOf(map: Y.Map<unknown>): TableAnswer {
  const headers = (map.get('headers') as Y.Array<string> | undefined)?.toArray() ?? [];
  const rows = ((map.get('rows') as Y.Array<Y.Map<unknown>> | undefined)?.toArray() ?? []).map((row) =>
    headers.map((_header, column) => cellText(row.get(String(column)))),
  );
  return { headers, rows };
}

/** A fresh row id: random, so rows added at once by two people never share one. */
export function newRowId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return Array.from(bytes, (byte) => byte.toString(36).padStart(2, '0')).join('');
}

/** A new table row: its id and one Y.Text per cell. */
export function newTableRow(cells: readonly string[]): Y.Map<unknown> {
  const row = new Y.Map<unknown>();
  row.set(ROW_ID, newRowId());
  cells.forEach((cell, column) => row.set(String(column), new Y.Text(cell)));
  return row;
}

/** The plain answers a document holds; an empty text or a table without rows (as `prepareAnswers` makes them) is no answer. */
export function readAnswers(doc: Y.Doc): StepAnswers {
  const answers: StepAnswers = {};
  doc.getMap(ANSWERS_MAP).forEach((value, questionId) => {
    if (value instanceof Y.Text) {
      if (value.length > 0) answers[questionId] = value.toString();
    } else if (value instanceof Y.Map) {
      const table = tableOf(value as Y.Map<unknown>);
      if (table.rows.length > 0) answers[questionId] = table;
    } else answers[questionId] = value as Answer;
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

/** Sets a cell to `next`: its Y.Text's changed middle, or a new Y.Text where the cell had none (or a plain string). */
export function writeCell(row: Y.Map<unknown>, column: number, next: string): void {
  const cell = row.get(String(column));
  if (cell instanceof Y.Text) updateText(cell, next);
  else if (next !== '' || cell !== undefined) row.set(String(column), new Y.Text(next));
}

function updateTable(map: Y.Map<unknown>, next: TableAnswer): void {
  let headers = map.get('headers') as Y.Array<string> | undefined;
  if (!headers) map.set('headers', (headers = new Y.Array<string>()));
  if (JSON.stringify(headers.toArray()) !== JSON.stringify(next.headers)) {
    headers.delete(0, headers.length);
    headers.insert(0, next.headers);
  }
  let rows = map.get('rows') as Y.Array<Y.Map<unknown>> | undefined;
  if (!rows) map.set('rows', (rows = new Y.Array<Y.Map<unknown>>()));
  // The API's rows have no ids: they are matched by position.
  next.rows.forEach((cells, index) => {
    const row = rows.get(index);
    if (!row) return rows.push([newTableRow(cells)]);
    cells.forEach((cell, column) => {
      if (cellText(row.get(String(column))) !== cell) writeCell(row, column, cell);
    });
    for (const key of [...row.keys()]) if (key !== ROW_ID && Number(key) >= cells.length) row.delete(key);
  });
  if (rows.length > next.rows.length) rows.delete(next.rows.length, rows.length - next.rows.length);
}

/**
 * Gives every table row of a document stored before rows had ids its id, and Y.Text cells in
 * place of plain strings, in one transaction. Returns whether anything changed.
 */
export function upgradeTables(doc: Y.Doc, origin?: unknown): boolean {
  const legacy: Y.Map<unknown>[] = [];
  doc.getMap(ANSWERS_MAP).forEach((value) => {
    if (!(value instanceof Y.Map)) return;
    const rows = value.get('rows');
    if (!(rows instanceof Y.Array)) return;
    for (const row of rows.toArray() as unknown[]) {
      if (row instanceof Y.Map && (!row.has(ROW_ID) || [...row.entries()].some(([key, cell]) => key !== ROW_ID && typeof cell === 'string'))) legacy.push(row);
    }
  });
  if (legacy.length === 0) return false;
  doc.transact(() => {
    for (const row of legacy) {
      if (!row.has(ROW_ID)) row.set(ROW_ID, newRowId());
      for (const [key, cell] of [...row.entries()]) if (key !== ROW_ID && typeof cell === 'string') row.set(key, new Y.Text(cell));
    }
  }, origin);
  return true;
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

/**
 * Gives every text answer of the step its Y.Text and every table its Y.Map (with the question's
 * headers and no rows) where the document has none, in one transaction; returns whether it did.
 * The server does this when a document loads, before anyone types: two people whose first
 * keystrokes each created an answer's Y.Text would race, and Y.js keeps one of two concurrent map
 * entries. Empty ones are blank answers, never recorded.
 */
export function prepareAnswers(doc: Y.Doc, step: Step, origin?: unknown): boolean {
  const answers = doc.getMap(ANSWERS_MAP);
  const missing = step.questions.filter((question) => {
    const value = answers.get(question.id);
    if (question.type === 'text' || question.type === 'textarea') return !(value instanceof Y.Text);
    return question.type === 'table' && !(value instanceof Y.Map);
  });
  if (missing.length === 0) return false;
  doc.transact(() => {
    for (const question of missing) {
      // A plain value where a shared type belongs (written by an outside client) is kept as it is.
      if (answers.has(question.id)) continue;
      if (question.type === 'table') {
        const table = new Y.Map<unknown>();
        answers.set(question.id, table);
        table.set('headers', Y.Array.from((question.columns ?? []).map((column) => column.header)));
        table.set('rows', new Y.Array<Y.Map<unknown>>());
      } else answers.set(question.id, new Y.Text());
    }
  }, origin);
  return true;
}

/** A fresh document holding the stored answers, encoded as one update. */
export function seedDocumentState(step: Step, answers: StepAnswers, completed: boolean): Uint8Array {
  const doc = new Y.Doc();
  writeAnswers(doc, step, answers);
  prepareAnswers(doc, step);
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
