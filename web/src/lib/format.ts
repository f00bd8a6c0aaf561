import { DEFAULT_STEP_KEYS, PRINCIPAL_LETTER_KEY } from '@csp/shared/steps';
import { LEVEL_NAMES, PLAN_STATUS_LABELS, type Level } from '@csp/shared/roles';

/** Number of plan sections counted for completion (the principal's letter never counts). */
export const SECTION_COUNT = DEFAULT_STEP_KEYS.length;

/** "n/14 sections": distinct completed steps, without the principal's letter. */
export function sectionsLabel(completedSteps: readonly string[] | null | undefined, total = SECTION_COUNT): string {
  const done = new Set((completedSteps ?? []).filter((key) => key !== PRINCIPAL_LETTER_KEY)).size;
  return `${Math.min(done, total)}/${total} sections`;
}

export function statusLabel(status: string): string {
  return (PLAN_STATUS_LABELS as Record<string, string>)[status] ?? status.replaceAll('_', ' ');
}

export function levelName(level: number): string {
  return level in LEVEL_NAMES ? LEVEL_NAMES[level as Level] : `Level ${level}`;
}

const time = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit' });
const date = new Intl.DateTimeFormat('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
const dateTime = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** "10:42 AM" in the reader's time zone. */
export const timeLabel = (at: Date | string | number) => time.format(new Date(at));
/** "September 30, 2026" for a calendar date (`YYYY-MM-DD`). */
export const dateLabel = (isoDate: string) => date.format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`));
/** "Nov 24, 10:42 AM" */
export const dateTimeLabel = (at: Date | string) => dateTime.format(new Date(at));
