import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { readAnswers, seedDocumentState, writeAnswers, parseCollabDocumentName, collabDocumentName } from './collabDocument.ts';
import type { Step } from './questionBank.ts';

const step: Step = {
  key: 'attendancePlan',
  title: 'Attendance',
  intro: '',
  questions: [
    { id: 'att_strategy', number: '6a', title: 'Strategy', type: 'textarea', required: true },
    { id: 'att_committee', number: '6b', title: 'Committee?', type: 'yesno', required: true },
    {
      id: 'att_team',
      number: '6c',
      title: 'Team',
      type: 'table',
      required: false,
      columns: [
        { header: 'Name', type: 'text' },
        { header: 'Role', type: 'text' },
      ],
    },
  ],
};

function sync(a: Y.Doc, b: Y.Doc) {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)));
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)));
}

describe('collaborative step document', () => {
  it('round-trips answers of every kind', () => {
    const answers = {
      att_strategy: 'Call home\nafter 2 absences',
      att_committee: true,
      att_team: {
        headers: ['Name', 'Role'],
        rows: [
          ['Ana', 'Chair'],
          ['Bo', 'Clerk'],
        ],
      },
    };
    const doc = new Y.Doc();
    Y.applyUpdate(doc, seedDocumentState(step, answers, false));
    expect(readAnswers(doc)).toEqual(answers);
  });

  it('merges concurrent typing in one text by character', () => {
    const a = new Y.Doc();
    Y.applyUpdate(a, seedDocumentState(step, { att_strategy: 'Call home.' }, false));
    const b = new Y.Doc();
    sync(a, b);
    writeAnswers(a, step, { att_strategy: 'Always call home.' });
    writeAnswers(b, step, { att_strategy: 'Call home today.' });
    sync(a, b);
    expect(readAnswers(a).att_strategy).toBe('Always call home today.');
    expect(readAnswers(b)).toEqual(readAnswers(a));
  });

  it('merges concurrent row additions, cell edits and removals', () => {
    const a = new Y.Doc();
    Y.applyUpdate(
      a,
      seedDocumentState(
        step,
        {
          att_team: {
            headers: ['Name', 'Role'],
            rows: [
              ['Ana', 'Chair'],
              ['Bo', 'Clerk'],
            ],
          },
        },
        false,
      ),
    );
    const b = new Y.Doc();
    sync(a, b);
    writeAnswers(a, step, {
      att_team: {
        headers: ['Name', 'Role'],
        rows: [
          ['Ana', 'Chair'],
          ['Bo', 'Clerk'],
          ['Cy', 'Member'],
        ],
      },
    });
    writeAnswers(b, step, {
      att_team: {
        headers: ['Name', 'Role'],
        rows: [
          ['Ana', 'Co-chair'],
          ['Bo', 'Clerk'],
        ],
      },
    });
    sync(a, b);
    expect(readAnswers(a).att_team).toEqual({
      headers: ['Name', 'Role'],
      rows: [
        ['Ana', 'Co-chair'],
        ['Bo', 'Clerk'],
        ['Cy', 'Member'],
      ],
    });
    expect(readAnswers(b)).toEqual(readAnswers(a));
  });

  it('names documents per plan step and parses only well-formed names', () => {
    const name = collabDocumentName('0123456789abcdef01234567', 'attendancePlan');
    expect(parseCollabDocumentName(name)).toEqual({ formId: '0123456789abcdef01234567', stepKey: 'attendancePlan' });
    expect(parseCollabDocumentName('plan:xyz:step:attendancePlan')).toBeNull();
    expect(parseCollabDocumentName(`${name}:extra`)).toBeNull();
  });
});
