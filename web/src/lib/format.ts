import { DEFAULT_STEP_KEYS, PRINCIPAL_LETTER_KEY } from '@csp/shared/steps';
import { LEVEL_NAMES, type Level } from '@csp/shared/roles';

/** Number of plan sections counted for completion (the principal's letter never counts). */
export const SECTION_COUNT = DEFAULT_STEP_KEYS.length;

/** "n/14 sections": distinct completed steps, without the principal's letter. */
export function sectionsLabel(completedSteps: readonly string[] | null | undefined, total = SECTION_COUNT): string {
  const done = new Set((completedSteps ?? []).filter((key) => key !== PRINCIPAL_LETTER_KEY)).size;
  return `${Math.min(done, total)}/${total} sections`;
}

const STATUS_LABELS: Record<string, string> = {
  draft: 'Draft',
  submitted: 'Submitted',
  under_review: 'Under review',
  approved: 'Approved',
  rejected: 'Rejected',
};

export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status.replaceAll('_', ' ');
}

export function levelName(level: number): string {
  return level in LEVEL_NAMES ? LEVEL_NAMES[level as Level] : `Level ${level}`;
}
