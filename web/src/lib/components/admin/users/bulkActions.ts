import type { BulkAction, BulkResponse, BulkResult } from '@csp/shared/api/users';

/** The most users one bulk request takes (the route refuses more). */
export const BULK_LIMIT = 500;

export const BULK_LABELS: Record<BulkAction, string> = {
  activate: 'Activate',
  deactivate: 'Deactivate',
  delete: 'Delete',
  level_up: 'Level up',
  level_down: 'Level down',
};

/** Why the chosen action cannot be sent for this selection; null when it can. */
export function bulkRefusal(action: BulkAction | '', selected: number): string | null {
  if (!action) return 'Choose an action.';
  if (selected === 0) return 'Select at least one user.';
  if (selected > BULK_LIMIT) return `Select at most ${BULK_LIMIT} users at a time.`;
  return null;
}

export interface BulkOutcome {
  action: BulkAction;
  applied: number;
  refused: number;
  results: (BulkResult & { label: string })[];
}

/** What the answer says per user, each named by `nameOf` when the list has seen them, else by e-mail or id. */
export function bulkOutcome(action: BulkAction, answer: BulkResponse, nameOf: (userId: string) => string | null): BulkOutcome {
  return {
    action,
    applied: answer.applied,
    refused: answer.results.length - answer.applied,
    results: answer.results.map((result) => ({ ...result, label: nameOf(result.userId) ?? result.email ?? result.userId })),
  };
}

/** The selection after an action: only the refused stay selected, to look at again. */
export const refusedSelection = (answer: BulkResponse): Record<string, true> =>
  Object.fromEntries(answer.results.filter((result) => !result.success).map((result) => [result.userId, true as const]));
