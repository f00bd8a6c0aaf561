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

const fullDateTime = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' });
/** "Nov 24, 2026, 10:42 AM": past records, which may be from another year. */
export const fullDateTimeLabel = (at: Date | string) => fullDateTime.format(new Date(at));

const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];
/** "5 minutes ago", "yesterday", "just now": as of when it is called (shown beside the exact time, so it need not tick). */
export function relativeLabel(at: Date | string, now = Date.now()): string {
  const elapsed = new Date(at).getTime() - now;
  for (const [unit, size] of UNITS) if (Math.abs(elapsed) >= size) return relative.format(Math.round(elapsed / size), unit);
  return 'just now';
}

const names = new Intl.ListFormat('en-US', { style: 'long', type: 'conjunction' });
/** "Elena Rodriguez and Marcus Bell" */
export const namesLabel = (list: readonly string[]) => names.format(list);
