import type { Answer, Question, Step, StepAnswers, TableColumn } from '@csp/shared';
import { visibleQuestions } from '@csp/shared';

/** Plausible staff of a New York City school, for demo plans and benchmarks. */
const STAFF = [
  ['Maria', 'Alvarez', 'Assistant Principal'],
  ['Kwame', 'Mensah', 'School Counselor'],
  ['Mei', 'Chen', 'Social Worker'],
  ['Rahim', 'Uddin', 'Attendance Teacher'],
  ['Grace', "O'Connor", 'Dean of Students'],
  ['Luis', 'Ortiz', 'Parent Coordinator'],
] as const;

function cell(column: TableColumn, row: number, school: string): string {
  const [first, last, title] = STAFF[row % STAFF.length]!;
  const header = column.header.toLowerCase();
  if (column.type === 'select') return column.options?.[0] ?? '';
  if (header.includes('first')) return first;
  if (header.includes('last')) return last;
  if (header.includes('title') || header.includes('role')) return title;
  if (header.includes('mail')) return `${first}.${last}@${school}.example.org`.toLowerCase().replace(/[^a-z0-9.@]/g, '');
  if (header.includes('phone')) return `718-555-01${String(10 + row).padStart(2, '0')}`;
  if (header.includes('date') || header.includes('start')) return `2025-09-${String(8 + row).padStart(2, '0')}`;
  if (header.includes('end')) return `2026-06-${String(10 + row).padStart(2, '0')}`;
  if (header.includes('room')) return String(101 + row * 7);
  if (header.includes('grade')) return ['K-2', '3-5', '6-8'][row % 3]!;
  return `${column.header} ${row + 1}`;
}

function sampleAnswer(question: Question, school: string): Answer {
  switch (question.type) {
    case 'text':
      return question.reviewYearly ? 'Maria Alvarez, Assistant Principal' : 'In place and reviewed with staff in September.';
    case 'textarea':
      return `${school} reviewed this area with the school leadership team.\nStaff were reminded of the procedures at the first faculty conference, and families received the information in their home languages.`;
    case 'yesno':
    case 'checkbox':
      return true;
    case 'select':
      return question.options?.[0]?.value ?? '';
    case 'table': {
      const columns = question.columns ?? [];
      return { headers: columns.map((c) => c.header), rows: [0, 1, 2].map((row) => columns.map((c) => cell(c, row, school))) };
    }
  }
}

/** Answers every visible question of a step, as a diligent school would. */
export function sampleStepAnswers(step: Step, school: string): StepAnswers {
  const answers: StepAnswers = {};
  // Answering a gate yes reveals more questions: repeat until the visible set settles.
  for (let round = 0; round < 5; round++) {
    const before = Object.keys(answers).length;
    for (const question of visibleQuestions(step, answers)) answers[question.id] ??= sampleAnswer(question, school);
    if (Object.keys(answers).length === before) break;
  }
  return answers;
}
