import { describe, expect, it } from 'vitest';
import { answerSchema, isStepComplete, requiredProgress, sameAnswer, unansweredRequired, visibleQuestions } from './answers.ts';
import type { Step } from './questionBank.ts';

const step: Step = {
  key: 'temporaryHousing',
  title: 'Students in Temporary Housing',
  intro: '',
  questions: [
    { id: 'sth_liaison', number: '7a', title: 'Liaison', type: 'text', required: true },
    { id: 'sth_has', number: '7b', title: 'Any students?', type: 'yesno', required: true, gatesFollowing: true },
    { id: 'sth_count', number: '7c', title: 'How many?', type: 'text', required: true },
    { id: 'sth_transport', number: '7d', title: 'Transport?', type: 'yesno', required: false },
    { id: 'sth_howTransport', number: '7e', title: 'How?', type: 'textarea', required: true, visibleWhen: { questionId: 'sth_transport', equals: true } },
    { id: 'sth_old', number: '7f', title: 'Retired', type: 'text', required: true, active: false },
  ],
};

describe('visibility and completion', () => {
  it('a gate hides the rest of its step until answered yes', () => {
    expect(visibleQuestions(step, {}).map((q) => q.id)).toEqual(['sth_liaison', 'sth_has']);
    expect(visibleQuestions(step, { sth_has: false }).map((q) => q.id)).toEqual(['sth_liaison', 'sth_has']);
    expect(visibleQuestions(step, { sth_has: true }).map((q) => q.id)).toEqual(['sth_liaison', 'sth_has', 'sth_count', 'sth_transport']);
  });

  it('visibleWhen shows a question only on the matching answer; inactive questions never show', () => {
    const ids = visibleQuestions(step, { sth_has: true, sth_transport: true }).map((q) => q.id);
    expect(ids).toContain('sth_howTransport');
    expect(ids).not.toContain('sth_old');
  });

  it('a step is complete when every visible required question is answered', () => {
    expect(isStepComplete(step, { sth_liaison: 'Ms. Ortiz', sth_has: false })).toBe(true);
    expect(isStepComplete(step, { sth_liaison: '  ', sth_has: false })).toBe(false);
    expect(isStepComplete(step, { sth_liaison: 'Ms. Ortiz', sth_has: true })).toBe(false);
    expect(isStepComplete(step, { sth_liaison: 'Ms. Ortiz', sth_has: true, sth_count: '12' })).toBe(true);
    expect(isStepComplete(step, { sth_liaison: 'Ms. Ortiz', sth_has: true, sth_count: '12', sth_transport: true })).toBe(false);
  });

  it('counts only visible required questions, per step and over a plan', () => {
    expect(unansweredRequired(step, { sth_has: true }).map((q) => q.id)).toEqual(['sth_liaison', 'sth_count']);
    const other: Step = { ...step, key: 'other', questions: [{ id: 'o1', number: '8a', title: 'Other', type: 'text', required: true }] };
    expect(requiredProgress([step, other], {})).toEqual({ required: 3, answered: 0 });
    expect(requiredProgress([step, other], { temporaryHousing: { data: { sth_liaison: 'Ms. Ortiz', sth_has: true } }, other: { data: { o1: 'x' } } })).toEqual({
      required: 4,
      answered: 3,
    });
  });

  it('answer schemas follow the question type', () => {
    const [liaison, has] = step.questions;
    expect(answerSchema(liaison!).safeParse('x').success).toBe(true);
    expect(answerSchema(liaison!).safeParse(3).success).toBe(false);
    expect(answerSchema(has!).safeParse(true).success).toBe(true);
    expect(answerSchema(has!).safeParse('yes').success).toBe(false);
    const select = {
      id: 's',
      number: '1',
      title: 't',
      type: 'select' as const,
      required: false,
      options: [
        { value: 'a', label: 'A' },
        { value: 'b', label: 'B' },
      ],
    };
    expect(answerSchema(select).safeParse('b').success).toBe(true);
    expect(answerSchema(select).safeParse('c').success).toBe(false);
    const table = { id: 't', number: '1', title: 't', type: 'table' as const, required: false, columns: [{ header: 'Name', type: 'text' as const }] };
    expect(answerSchema(table).safeParse({ headers: ['Name'], rows: [['Ana']] }).success).toBe(true);
    expect(answerSchema(table).safeParse({ headers: ['Name'], rows: Array.from({ length: 101 }, () => ['x']) }).success).toBe(false);
  });

  it('compares answers by value', () => {
    expect(sameAnswer({ headers: ['a'], rows: [['1']] }, { headers: ['a'], rows: [['1']] })).toBe(true);
    expect(sameAnswer({ headers: ['a'], rows: [['1']] }, { headers: ['a'], rows: [['2']] })).toBe(false);
    // jsonb hands objects back with its own key order
    expect(sameAnswer({ rows: [['1']], headers: ['a'] } as never, { headers: ['a'], rows: [['1']] })).toBe(true);
    expect(sameAnswer({ headers: ['a'], rows: [['1'], ['2']] }, { headers: ['a'], rows: [['1']] })).toBe(false);
    expect(sameAnswer(null, undefined)).toBe(true);
    expect(sameAnswer('', null)).toBe(false);
  });
});
