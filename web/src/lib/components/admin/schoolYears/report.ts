import type { RolloverResult } from '@csp/shared/api/admin';
import { toCsv } from '#lib/csv.ts';

export type Outcome = 'Created' | 'Skipped' | 'Filled' | 'Error';

/** One school's line of a rollover report. */
export interface ReportRow extends Record<string, unknown> {
  school: string;
  outcome: Outcome;
  /** The new plan, or the existing one that was skipped or filled. */
  formId: string | null;
  error: string;
}

/** The report's lines: errors first (they need attention), then created, filled and skipped schools, each group by name. */
export function reportRows(result: RolloverResult): ReportRow[] {
  const order: Record<Outcome, number> = { Error: 0, Created: 1, Filled: 2, Skipped: 3 };
  return [
    ...result.errors.map((row) => ({ school: row.school, outcome: 'Error' as const, formId: null, error: row.error })),
    ...result.created.map((row) => ({ school: row.school, outcome: 'Created' as const, formId: row.formId, error: '' })),
    ...result.filled.map((row) => ({ school: row.school, outcome: 'Filled' as const, formId: row.formId, error: '' })),
    ...result.skipped.map((row) => ({ school: row.school, outcome: 'Skipped' as const, formId: row.existingFormId, error: '' })),
  ].sort((a, b) => order[a.outcome] - order[b.outcome] || a.school.localeCompare(b.school));
}

/** The report as CSV, one line per school in the report's order, with the target year's plan id. */
export function reportCsv(result: RolloverResult): string {
  return toCsv([
    ['School', 'Outcome', `${result.targetYear} plan id`, 'Error'],
    ...reportRows(result).map((row) => [row.school, row.outcome, row.formId ?? '', row.error]),
  ]);
}
