import { describe, expect, it } from 'vitest';
import { BULK_LIMIT, bulkOutcome, bulkRefusal, refusedSelection } from './bulkActions.ts';

describe('bulkRefusal', () => {
  it('asks for an action, then a selection, and refuses more than the route takes', () => {
    expect(bulkRefusal('', 3)).toBe('Choose an action.');
    expect(bulkRefusal('activate', 0)).toBe('Select at least one user.');
    expect(bulkRefusal('delete', BULK_LIMIT + 1)).toBe('Select at most 500 users at a time.');
    expect(bulkRefusal('delete', BULK_LIMIT)).toBeNull();
  });
});

describe('bulkOutcome', () => {
  const answer = {
    success: true as const,
    action: 'deactivate' as const,
    applied: 1,
    results: [
      { userId: 'a', success: true },
      { userId: 'b', email: 'b@example.org', success: false, error: 'Not your school' },
      { userId: 'c', success: false },
    ],
  };

  it('names each user as the list knows them, else by e-mail, else by id, and counts the refused', () => {
    const outcome = bulkOutcome('deactivate', answer, (id) => (id === 'a' ? 'Ann (a@example.org)' : null));
    expect(outcome.results.map((result) => result.label)).toEqual(['Ann (a@example.org)', 'b@example.org', 'c']);
    expect([outcome.applied, outcome.refused]).toEqual([1, 2]);
  });

  it('keeps only the refused selected', () => {
    expect(refusedSelection(answer)).toEqual({ b: true, c: true });
  });
});
