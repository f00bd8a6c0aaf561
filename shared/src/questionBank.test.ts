import { describe, expect, it } from 'vitest';
import bank from './bank/v1.json' with { type: 'json' };
import { QUESTION_ID_PATTERN, QUESTION_TYPES, TABLE_MAX_COLUMNS, questionBankSchema, type QuestionBank } from './questionBank.ts';
import { DEFAULT_STEP_KEYS } from './steps.ts';

/** Parses the bank, failing with the zod issues spelled out when it does not fit the schema. */
function parseBank(input: unknown): QuestionBank {
  const result = questionBankSchema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`question bank does not match the schema:\n${issues.join('\n')}`);
  }
  return result.data;
}

/** A deep copy of the raw JSON to break in one place; typed loosely so tests can corrupt it. */
function cloneRaw(): { version: number; steps: Array<{ key: string; questions: Array<Record<string, unknown>> }> } {
  return structuredClone(bank) as unknown as ReturnType<typeof cloneRaw>;
}

function findQuestion(raw: ReturnType<typeof cloneRaw>, predicate: (q: Record<string, unknown>) => boolean) {
  for (const step of raw.steps) {
    const question = step.questions.find(predicate);
    if (question) return question;
  }
  throw new Error('no question matches');
}

const parseResult = questionBankSchema.safeParse(bank);
/**
 * The typed bank for the structural checks below. When the schema rejects the bank, the 'parses' test
 * reports the issues and the other checks still run on the raw JSON, so they fail independently.
 */
const parsed: QuestionBank = parseResult.success ? parseResult.data : (bank as unknown as QuestionBank);
const allQuestions = parsed.steps.flatMap((step) => step.questions.map((question) => ({ step, question })));

describe('question bank v1', () => {
  it('parses with questionBankSchema', () => {
    // Throws with every zod issue listed when the bank does not fit the schema.
    const result = parseBank(bank);
    expect(result.version).toBe(1);
    expect(result.steps).toHaveLength(DEFAULT_STEP_KEYS.length);
  });

  it('has exactly the default step keys, in order', () => {
    expect(parsed.steps.map((step) => step.key)).toEqual([...DEFAULT_STEP_KEYS]);
    for (const step of parsed.steps) {
      expect(step.title.trim(), step.key).not.toBe('');
      expect(step.intro.trim(), step.key).not.toBe('');
      expect(step.questions.length, step.key).toBeGreaterThan(0);
    }
  });

  it('has unique question ids bank-wide and a total between 100 and 150', () => {
    const counts = new Map<string, number>();
    for (const { question } of allQuestions) counts.set(question.id, (counts.get(question.id) ?? 0) + 1);
    const duplicates = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
    expect(duplicates).toEqual([]);
    expect(counts.size).toBe(allQuestions.length);
    expect(allQuestions.length).toBeGreaterThanOrEqual(100);
    expect(allQuestions.length).toBeLessThanOrEqual(150);
    for (const { question } of allQuestions) expect(question.id).toMatch(QUESTION_ID_PATTERN);
  });

  it('numbers questions as the step number plus a letter sequence', () => {
    const letters = (i: number): string => (i < 26 ? String.fromCharCode(97 + i) : letters(Math.floor(i / 26) - 1) + String.fromCharCode(97 + (i % 26)));
    parsed.steps.forEach((step, stepIndex) => {
      expect(step.questions.map((q) => q.number)).toEqual(step.questions.map((_, i) => `${stepIndex + 1}${letters(i)}`));
    });
  });

  it('uses every question type', () => {
    const used = new Set(allQuestions.map(({ question }) => question.type));
    for (const type of QUESTION_TYPES) expect(used.has(type), type).toBe(true);
  });

  it('gives every select at least two distinct options', () => {
    const selects = allQuestions.filter(({ question }) => question.type === 'select');
    expect(selects.length).toBeGreaterThan(0);
    for (const { question } of selects) {
      const values = (question.options ?? []).map((option) => option.value);
      expect(values.length, question.id).toBeGreaterThanOrEqual(2);
      expect(new Set(values).size, question.id).toBe(values.length);
      for (const value of values) expect(value, question.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });

  it('gives every table well-formed columns', () => {
    const tables = allQuestions.filter(({ question }) => question.type === 'table');
    expect(tables.length).toBeGreaterThan(0);
    for (const { question } of tables) {
      const columns = question.columns ?? [];
      expect(columns.length, question.id).toBeGreaterThanOrEqual(1);
      expect(columns.length, question.id).toBeLessThanOrEqual(TABLE_MAX_COLUMNS);
      const headers = columns.map((column) => column.header.trim());
      expect(
        headers.every((header) => header !== ''),
        question.id,
      ).toBe(true);
      expect(new Set(headers).size, `${question.id} has duplicate headers`).toBe(headers.length);
      for (const column of columns) {
        if (column.type === 'select') expect(column.options?.length ?? 0, `${question.id}/${column.header}`).toBeGreaterThanOrEqual(2);
        else expect(column.options, `${question.id}/${column.header}`).toBeUndefined();
      }
    }
    for (const { question } of allQuestions) {
      if (question.type !== 'table') expect(question.columns, question.id).toBeUndefined();
    }
  });

  it('points every visibleWhen at an earlier yes/no or select question in the same step', () => {
    let count = 0;
    for (const step of parsed.steps) {
      step.questions.forEach((question, index) => {
        if (!question.visibleWhen) return;
        count++;
        const { questionId, equals } = question.visibleWhen;
        const targetIndex = step.questions.findIndex((q) => q.id === questionId);
        expect(targetIndex, `${question.id} -> ${questionId}`).toBeGreaterThanOrEqual(0);
        expect(targetIndex, `${question.id} must come after ${questionId}`).toBeLessThan(index);
        const target = step.questions[targetIndex]!;
        if (target.type === 'select') {
          expect(
            target.options?.map((option) => option.value),
            question.id,
          ).toContain(equals);
        } else {
          expect(['yesno', 'checkbox'], question.id).toContain(target.type);
          expect(equals, question.id).toBe(true);
        }
      });
    }
    expect(count).toBeGreaterThanOrEqual(3);
  });

  it('gates only with yes/no or checkbox questions, in at least four steps', () => {
    const gates = allQuestions.filter(({ question }) => question.gatesFollowing);
    for (const { question } of gates) expect(['yesno', 'checkbox'], question.id).toContain(question.type);
    expect(new Set(gates.map(({ step }) => step.key)).size).toBeGreaterThanOrEqual(4);
  });

  it('does not deactivate any question in v1', () => {
    for (const { question } of allQuestions) expect(question.active, question.id).toBeUndefined();
  });

  it('asks for yearly review on a reasonable share of questions', () => {
    const yearly = allQuestions.filter(({ question }) => question.reviewYearly).length;
    expect(yearly).toBeGreaterThanOrEqual(30);
    expect(yearly).toBeLessThanOrEqual(50);
    const required = allQuestions.filter(({ question }) => question.required).length;
    expect(required / allQuestions.length).toBeGreaterThan(0.6);
    expect(required / allQuestions.length).toBeLessThan(0.85);
  });
});

describe('questionBankSchema rejects broken banks', () => {
  it('accepts an untouched clone (control)', () => {
    expect(questionBankSchema.safeParse(cloneRaw()).success).toBe(true);
  });

  it('rejects a question id duplicated across two steps', () => {
    const raw = cloneRaw();
    const first = raw.steps[0]!.questions[0]!;
    const other = raw.steps[1]!.questions[0]!;
    other.id = first.id;
    const result = questionBankSchema.safeParse(raw);
    expect(result.success).toBe(false);
    expect(result.error?.issues.some((issue) => issue.message.includes(String(first.id)))).toBe(true);
  });

  it('rejects an unknown question type', () => {
    const raw = cloneRaw();
    findQuestion(raw, (q) => q.type === 'textarea').type = 'essay';
    expect(questionBankSchema.safeParse(raw).success).toBe(false);
  });

  it('rejects a select without options', () => {
    const raw = cloneRaw();
    delete findQuestion(raw, (q) => q.type === 'select').options;
    expect(questionBankSchema.safeParse(raw).success).toBe(false);
  });

  it('rejects a select with a single option', () => {
    const raw = cloneRaw();
    const select = findQuestion(raw, (q) => q.type === 'select');
    select.options = (select.options as unknown[]).slice(0, 1);
    expect(questionBankSchema.safeParse(raw).success).toBe(false);
  });

  it('rejects an extra unknown key on a question, a step and the bank', () => {
    const onQuestion = cloneRaw();
    onQuestion.steps[2]!.questions[0]!.description = 'not in the schema';
    expect(questionBankSchema.safeParse(onQuestion).success).toBe(false);

    const onStep = cloneRaw();
    (onStep.steps[3] as Record<string, unknown>).order = 4;
    expect(questionBankSchema.safeParse(onStep).success).toBe(false);

    const onBank = cloneRaw();
    (onBank as Record<string, unknown>).publishedAt = '2025-09-01';
    expect(questionBankSchema.safeParse(onBank).success).toBe(false);
  });

  it('rejects a visibleWhen that points into another step', () => {
    const raw = cloneRaw();
    const dependent = findQuestion(raw, (q) => q.visibleWhen !== undefined);
    dependent.visibleWhen = { questionId: raw.steps[0]!.questions[0]!.id, equals: true };
    expect(questionBankSchema.safeParse(raw).success).toBe(false);
  });
});
