import type { Answer, Question, TableAnswer } from './questionBank.ts';

/**
 * An answer as plain text, the way compare views and reports show it: yes/no and checkbox as
 * Yes/No, a select as its option's label, a table as its header line and rows joined with " | ",
 * text trimmed, nothing for no answer.
 */
export function answerAsText(question: Pick<Question, 'type' | 'options'> | undefined, answer: Answer | undefined): string {
  if (answer === null || answer === undefined) return '';
  if (typeof answer === 'boolean') return answer ? 'Yes' : 'No';
  if (typeof answer === 'string') {
    const label = question?.type === 'select' ? question.options?.find((option) => option.value === answer)?.label : undefined;
    return (label ?? answer).trim();
  }
  const table = answer as TableAnswer;
  const lines = [table.headers, ...table.rows.filter((row) => row.some((cell) => cell.trim() !== ''))].map((cells) =>
    cells.map((cell) => cell.trim()).join(' | '),
  );
  return table.rows.length === 0 ? '' : lines.join('\n').trim();
}
