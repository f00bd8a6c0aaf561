import { describe, expect, it } from 'vitest';
import { computeNeedsUpdate } from './needsUpdate.ts';
import { answerAsText } from './answerText.ts';
import type { QuestionBank } from './questionBank.ts';

const v1: QuestionBank = {
  version: 1,
  steps: [
    {
      key: 'attendancePlan',
      title: 'Attendance',
      intro: '',
      questions: [
        { id: 'att_coordinator', number: '6a', title: 'Attendance coordinator', type: 'text', required: true, reviewYearly: true },
        { id: 'att_strategy', number: '6b', title: 'Strategy', type: 'textarea', required: true },
        {
          id: 'att_frequency',
          number: '6c',
          title: 'Meeting frequency',
          type: 'select',
          required: true,
          options: [
            { value: 'weekly', label: 'Weekly' },
            { value: 'monthly', label: 'Monthly' },
          ],
        },
        { id: 'att_unanswered', number: '6d', title: 'Notes', type: 'text', required: false, reviewYearly: true },
      ],
    },
  ],
};
const v2: QuestionBank = {
  version: 2,
  steps: [
    {
      key: 'attendancePlan',
      title: 'Attendance',
      intro: '',
      questions: [
        v1.steps[0]!.questions[0]!,
        v1.steps[0]!.questions[1]!,
        {
          ...v1.steps[0]!.questions[2]!,
          options: [
            { value: 'weekly', label: 'Weekly' },
            { value: 'biweekly', label: 'Every two weeks' },
          ],
        },
        v1.steps[0]!.questions[3]!,
        { id: 'att_chronic', number: '6e', title: 'Chronic absence target', type: 'text', required: true },
      ],
    },
  ],
};
const answers = { attendancePlan: { att_coordinator: 'Ms. Ortiz', att_strategy: 'Calls', att_frequency: 'weekly' } };

describe('needsUpdate flags', () => {
  it('flags a new question, a changed one and an unchanged people question with an answer', () => {
    expect(computeNeedsUpdate(v1, v2, answers)).toEqual([
      { stepKey: 'attendancePlan', questionId: 'att_coordinator', reason: 'revisit', label: 'Same as last year: confirm names, dates and targets' },
      { stepKey: 'attendancePlan', questionId: 'att_frequency', reason: 'changed', label: 'Question changed: review the copied answer' },
      { stepKey: 'attendancePlan', questionId: 'att_chronic', reason: 'new', label: 'New this year' },
    ]);
  });

  it('flags every question new when the source plan has no bank', () => {
    expect(computeNeedsUpdate(null, v1, answers).map((f) => f.reason)).toEqual(['new', 'new', 'new', 'new']);
  });
});

describe('answers as text', () => {
  it('normalises each kind', () => {
    expect(answerAsText({ type: 'yesno' }, true)).toBe('Yes');
    expect(answerAsText({ type: 'checkbox' }, false)).toBe('No');
    expect(answerAsText({ type: 'text' }, '  Ms. Ortiz ')).toBe('Ms. Ortiz');
    expect(answerAsText(v1.steps[0]!.questions[2], 'monthly')).toBe('Monthly');
    expect(
      answerAsText(
        { type: 'table' },
        {
          headers: ['Name', 'Role'],
          rows: [
            ['Ana', 'Chair'],
            ['', ''],
          ],
        },
      ),
    ).toBe('Name | Role\nAna | Chair');
    expect(answerAsText({ type: 'text' }, null)).toBe('');
  });
});
