import { diffArrays, diffWords } from 'diff';
import { answerAsText, isBlankAnswer, type Answer, type Question, type StepAnswers, type TableAnswer } from '@csp/shared';

/** A run of words: kept, added or removed. */
export interface DiffPart {
  text: string;
  change: 'added' | 'removed' | null;
}

export interface RowChange {
  /** 1-based: the row's place after the change (before it, for a removed row). */
  row: number;
  change: 'added' | 'removed' | 'changed';
  /** Filled cells of an added or removed row; the changed cells of a changed row. */
  cells: { column: string; parts: DiffPart[] }[];
}

/**
 * What changed between two stored answers, in the form people read it: words for text, whole
 * values for yes/no, checkbox and choices ("Yes → No"), rows and cells for tables.
 */
export type AnswerChange =
  { kind: 'same' } | { kind: 'text'; parts: DiffPart[] } | { kind: 'choice'; before: string; after: string } | { kind: 'table'; rows: RowChange[] };

type QuestionLike = Pick<Question, 'type' | 'options' | 'columns'> | undefined;

const isTable = (value: unknown): value is TableAnswer => typeof value === 'object' && value !== null && Array.isArray((value as TableAnswer).rows);

/** Stored answers come from the server as `unknown`: anything that is not an answer counts as none. */
export function asAnswer(value: unknown): Answer {
  if (typeof value === 'string' || typeof value === 'boolean' || isTable(value)) return value;
  return null;
}

/** A step's answers as a version or the server's JSON holds them, each checked to be an answer. */
export function storedAnswers(data: Record<string, unknown> | undefined): StepAnswers {
  return Object.fromEntries(Object.entries(data ?? {}).map(([questionId, value]) => [questionId, asAnswer(value)]));
}

function wordParts(before: string, after: string): DiffPart[] {
  if (before === after) return before ? [{ text: before, change: null }] : [];
  return diffWords(before, after).map((part) => ({ text: part.value, change: part.added ? 'added' : part.removed ? 'removed' : null }));
}

const whole = (text: string, change: 'added' | 'removed'): DiffPart[] => (text ? [{ text, change }] : []);

function filledCells(row: string[], headers: string[], change: 'added' | 'removed'): RowChange['cells'] {
  return row.flatMap((cell, index) => (cell.trim() ? [{ column: headers[index] ?? `Column ${index + 1}`, parts: whole(cell, change) }] : []));
}

const rowKey = (row: string[]) => JSON.stringify(row.map((cell) => cell.trim()));

/**
 * Rows are matched by their content (jsdiff's array diff), so removing the second of five rows
 * reads as one removed row, not as four changed ones; a removed row followed by an added one is
 * read as that row changed, cell by cell.
 */
function tableRows(before: TableAnswer | null, after: TableAnswer | null, question: QuestionLike): RowChange[] {
  const headers = after?.headers ?? before?.headers ?? question?.columns?.map((column) => column.header) ?? [];
  const changes: RowChange[] = [];
  let oldIndex = 0;
  let newIndex = 0;
  const blocks = diffArrays(before?.rows ?? [], after?.rows ?? [], { comparator: (left, right) => rowKey(left) === rowKey(right) });
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index]!;
    if (!block.added && !block.removed) {
      oldIndex += block.value.length;
      newIndex += block.value.length;
      continue;
    }
    let removed: string[][] = [];
    let added: string[][] = block.value;
    if (block.removed) {
      removed = block.value;
      // jsdiff puts the removed block first; the added block right after it replaces it.
      const next = blocks[index + 1];
      added = next?.added ? next.value : [];
      if (next?.added) index++;
    }
    const paired = Math.min(removed.length, added.length);
    for (let offset = 0; offset < paired; offset++) {
      const was = removed[offset]!;
      const now = added[offset]!;
      const cells = headers
        .map((column, at) => ({ column, was: was[at] ?? '', now: now[at] ?? '' }))
        .filter((cell) => cell.was !== cell.now)
        .map((cell) => ({ column: cell.column, parts: wordParts(cell.was, cell.now) }));
      changes.push({ row: newIndex + offset + 1, change: 'changed', cells });
    }
    for (let offset = paired; offset < removed.length; offset++)
      changes.push({ row: oldIndex + offset + 1, change: 'removed', cells: filledCells(removed[offset]!, headers, 'removed') });
    for (let offset = paired; offset < added.length; offset++)
      changes.push({ row: newIndex + offset + 1, change: 'added', cells: filledCells(added[offset]!, headers, 'added') });
    oldIndex += removed.length;
    newIndex += added.length;
  }
  return changes;
}

/** Blank text, no value and a table without a filled cell are all "no answer", and equal. */
function sameAnswer(before: Answer, after: Answer): boolean {
  if (isBlankAnswer(before) && isBlankAnswer(after)) return true;
  return JSON.stringify(before) === JSON.stringify(after);
}

/** Words people read for a whole value: "Yes", a choice's label, or "No answer". */
export function valueLabel(question: QuestionLike, answer: Answer): string {
  return isBlankAnswer(answer) ? 'No answer' : answerAsText(question, answer);
}

export function answerChange(question: QuestionLike, beforeValue: unknown, afterValue: unknown): AnswerChange {
  const before = asAnswer(beforeValue);
  const after = asAnswer(afterValue);
  if (sameAnswer(before, after)) return { kind: 'same' };
  if (question?.type === 'table' || isTable(before) || isTable(after)) {
    const rows = tableRows(isTable(before) ? before : null, isTable(after) ? after : null, question);
    return rows.length ? { kind: 'table', rows } : { kind: 'same' };
  }
  if (typeof before === 'boolean' || typeof after === 'boolean' || question?.type === 'select' || question?.type === 'yesno' || question?.type === 'checkbox')
    return { kind: 'choice', before: valueLabel(question, before), after: valueLabel(question, after) };
  const parts = wordParts(typeof before === 'string' ? before : '', typeof after === 'string' ? after : '');
  return parts.some((part) => part.change) ? { kind: 'text', parts } : { kind: 'same' };
}
