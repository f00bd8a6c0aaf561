/** The question editor's form model and the draft-against-published diff, on the bundled bank. */
import { describe, expect, it } from 'vitest';
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { Step } from '@csp/shared';
import { changesOf, conditionCandidates, emptyForm, fieldsOf, formOf, problemsOf, stepKeyFrom } from './questionForm.ts';
import { changeCount, diffBanks } from './bankDiff.ts';

const step = (key: string): Step => structuredClone(BUNDLED_BANK.steps.find((candidate) => candidate.key === key)!);
const everyQuestion = BUNDLED_BANK.steps.flatMap((candidate) => candidate.questions.map((question) => ({ step: candidate, question })));

describe('question form', () => {
  it('round-trips every bundled question without a change', () => {
    for (const { step: owner, question } of everyQuestion) {
      expect(changesOf(question, formOf(question), owner), question.id).toEqual({});
      expect(problemsOf(formOf(question)), question.id).toEqual([]);
    }
  });

  it('sends only what changed, and null to remove an optional field', () => {
    const attendance = step('attendancePlan');
    const question = attendance.questions.find((candidate) => candidate.type === 'text' && !candidate.required)!;
    const form = { ...formOf(question), title: '  New title ', required: true, help: 'Some help' };
    expect(changesOf(question, form, attendance)).toEqual({
      title: 'New title',
      required: true,
      ...(question.help === 'Some help' ? {} : { help: 'Some help' }),
    });
    const withHelp = { ...question, help: 'Old help' };
    expect(changesOf(withHelp, { ...formOf(withHelp), help: '' }, attendance)).toEqual({ help: null });
    // Turning a text question into a drop-down sends the options with the type; back again removes them.
    const select = {
      ...formOf(question),
      type: 'select' as const,
      options: [
        { value: 'a', label: 'A' },
        { value: 'b', label: 'B' },
      ],
    };
    expect(changesOf(question, select, attendance)).toMatchObject({
      type: 'select',
      options: [
        { value: 'a', label: 'A' },
        { value: 'b', label: 'B' },
      ],
    });
    const asSelect = { ...question, ...fieldsOf(select, attendance) };
    expect(changesOf(asSelect, { ...select, type: 'text' }, attendance)).toEqual({ type: 'text', options: null });
  });

  it('builds table columns, gates and conditions, and names what is missing', () => {
    const attendance = step('attendancePlan');
    const gate = attendance.questions.find((question) => question.type === 'yesno')!;
    const form = {
      ...emptyForm('6z'),
      title: 'Partners',
      type: 'table' as const,
      columns: [
        { header: 'Name', type: 'text' as const, options: 'ignored' },
        { header: 'Kind', type: 'select' as const, options: 'School, Agency,  ' },
      ],
      gatesFollowing: true,
      conditionQuestionId: gate.id,
      conditionEquals: 'true',
    };
    expect(fieldsOf(form, attendance)).toEqual({
      number: '6z',
      title: 'Partners',
      type: 'table',
      required: false,
      columns: [
        { header: 'Name', type: 'text' },
        { header: 'Kind', type: 'select', options: ['School', 'Agency'] },
      ],
      visibleWhen: { questionId: gate.id, equals: true },
    });
    expect(problemsOf(emptyForm())).toEqual(['Give the question a number, such as 6a.', 'Give the question a title.']);
    expect(problemsOf({ ...emptyForm('1'), title: 'x', type: 'select' })).toContain('Every option needs a value and a label.');
    expect(problemsOf({ ...emptyForm('1'), title: 'x', type: 'table', columns: [{ header: 'A', type: 'select', options: '' }] })).toEqual([
      'A drop-down column needs its options.',
    ]);
    // Conditions name earlier questions of the step only.
    const second = attendance.questions[1]!;
    expect(conditionCandidates(attendance, second.id).map((question) => question.id)).toEqual(
      attendance.questions
        .slice(0, 1)
        .filter((question) => question.type !== 'table')
        .map((question) => question.id),
    );
  });
});

describe('draft against published', () => {
  it('lists nothing for an unchanged draft', () => {
    expect(diffBanks(BUNDLED_BANK, structuredClone(BUNDLED_BANK))).toEqual([]);
  });

  it('lists changed fields, added, deactivated and reordered questions, and step changes', () => {
    const draft = structuredClone(BUNDLED_BANK);
    const attendance = draft.steps.find((candidate) => candidate.key === 'attendancePlan')!;
    const [first, second] = attendance.questions as [Step['questions'][number], Step['questions'][number]];
    const oldTitle = first.title;
    first.title = 'Changed title';
    first.required = !first.required;
    second.active = false;
    attendance.questions.push({ id: 'q_0123456789ab', number: '6z', title: 'Brand new', type: 'text', required: false });
    attendance.questions.reverse();
    attendance.intro = 'New intro';
    const diffs = diffBanks(BUNDLED_BANK, draft);
    expect(diffs.map((diff) => diff.key)).toEqual(['attendancePlan']);
    const [diff] = diffs;
    expect(diff!.fields).toEqual([{ label: 'Introduction', before: expect.any(String), after: 'New intro' }]);
    expect(diff!.order!.after[0]).toBe(`${attendance.questions[1]!.number}. ${attendance.questions[1]!.title}`);
    const changed = diff!.questions.find((change) => change.question.id === first.id)!;
    expect(changed.kind).toBe('changed');
    expect(changed.fields).toEqual([
      { label: 'Title', before: oldTitle, after: 'Changed title' },
      { label: 'Required', before: first.required ? 'No' : 'Yes', after: first.required ? 'Yes' : 'No' },
    ]);
    expect(diff!.questions.find((change) => change.question.id === second.id)!.kind).toBe('deactivated');
    expect(diff!.questions.find((change) => change.question.id === 'q_0123456789ab')!.kind).toBe('added');
    expect(changeCount(diffs)).toBe(5);
  });
});

describe('stepKeyFrom', () => {
  it('suggests a key the step-key pattern accepts from any title', () => {
    expect(stepKeyFrom('Wellness plan 2')).toBe('wellnessPlan2');
    expect(stepKeyFrom('  21st-century SKILLS & more ')).toBe('stCenturySkillsMore');
    expect(stepKeyFrom('!!!')).toBe('');
  });
});
