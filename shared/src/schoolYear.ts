/** School years run July through June and are labelled `YYYY-YYYY`. */
const SCHOOL_YEAR_PATTERN = /^\d{4}-\d{4}$/;

export function isValidSchoolYear(value: unknown): value is string {
  return typeof value === 'string' && SCHOOL_YEAR_PATTERN.test(value);
}

/**
 * The years the service accepts anywhere a label comes in: first years 1900 to 2999, each label's
 * second year the next one. Everything the helpers compute from such a label stays well formed.
 */
export const FIRST_ACCEPTED_YEAR = 1900;
export const LAST_ACCEPTED_YEAR = 2999;

export function isAcceptedSchoolYear(value: unknown): value is string {
  if (!isValidSchoolYear(value)) return false;
  const first = Number(value.slice(0, 4));
  return Number(value.slice(5)) === first + 1 && first >= FIRST_ACCEPTED_YEAR && first <= LAST_ACCEPTED_YEAR;
}

function label(firstYear: number): string {
  return `${firstYear}-${firstYear + 1}`;
}

function firstYearOf(schoolYear: string): number {
  if (!isValidSchoolYear(schoolYear)) throw new RangeError(`Invalid school year: ${schoolYear}`);
  return Number(schoolYear.slice(0, 4));
}

/** July (month index 6) or later starts a new school year. */
export function schoolYearOf(date: Date): string {
  const year = date.getUTCFullYear();
  return date.getUTCMonth() >= 6 ? label(year) : label(year - 1);
}

export function currentSchoolYear(now: Date = new Date()): string {
  return schoolYearOf(now);
}

export function previousSchoolYear(schoolYear: string): string {
  return label(firstYearOf(schoolYear) - 1);
}

export function nextSchoolYear(schoolYear: string): string {
  return label(firstYearOf(schoolYear) + 1);
}

/** The highest valid label in the list, or null when there is none. */
export function latestSchoolYear(years: readonly string[]): string | null {
  let latest: string | null = null;
  for (const year of years) {
    if (isValidSchoolYear(year) && (latest === null || year > latest)) latest = year;
  }
  return latest;
}

export interface SchoolYearTerm {
  start: string;
  end: string;
  startLabel: string;
  endLabel: string;
}

export function schoolYearTerm(schoolYear: string): SchoolYearTerm {
  const first = firstYearOf(schoolYear);
  return {
    start: `${first}-07-01`,
    end: `${first + 1}-06-30`,
    startLabel: `July 1, ${first}`,
    endLabel: `June 30, ${first + 1}`,
  };
}

/** A plan's `schoolYear`, else the year its `createdAt` falls in. */
export function inferSchoolYear(form: { schoolYear?: string | null; createdAt?: Date | string | null }): string | null {
  if (isValidSchoolYear(form.schoolYear)) return form.schoolYear;
  if (form.createdAt == null) return null;
  const created = new Date(form.createdAt);
  return Number.isNaN(created.getTime()) ? null : schoolYearOf(created);
}
