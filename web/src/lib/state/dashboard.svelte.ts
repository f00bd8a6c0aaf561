import type { PlanListItem } from '@csp/shared/api/forms';
import type { YearFigures } from '@csp/shared/api/reports';
import type { YearSettings } from '@csp/shared/api/schoolYears';
import { api } from '#lib/api/index.ts';
import { deadlineStates } from '#lib/dashboard/dashboard.ts';
import { DashboardPlans } from './dashboardPlans.svelte.ts';
import { Loader } from './loader.svelte.ts';

/** Today as YYYY-MM-DD (UTC), as the deadlines' due dates are written. */
const today = () => new Date(Date.now()).toISOString().slice(0, 10);

export interface DashboardQuery {
  year: string;
  /** The acting user's id. */
  me: string;
  /** A Super Admin's dashboard: the whole district's figures, no plan read in full. */
  district: boolean;
}

/** Rows the dashboard's plan table shows; the plans page has them all. */
export const DASHBOARD_ROWS = 50;

interface YearReading {
  plans: PlanListItem[];
  /** How many plans of the year the person can see: the table shows the first page of them. */
  total: number;
  settings: YearSettings;
  /** The whole district's figures (Super Admins): counted by the database, never from a page of the plan list. */
  figures: YearFigures | null;
}

/** The dashboard's reading of one school year: the plans listed, the year's settings, and the district's figures or the person's own plans in full. */
export class DashboardPage {
  readonly #year: Loader<YearReading>;
  /** A person's own few plans in full, kept live: progress, comments, who is on them (not for a district's list). */
  readonly details = new DashboardPlans();

  readonly plans = $derived.by(() => this.#year.value?.plans ?? null);
  readonly total = $derived.by(() => this.#year.value?.total ?? 0);
  readonly settings = $derived.by(() => this.#year.value?.settings ?? null);
  readonly figures = $derived.by(() => this.#year.value?.figures ?? null);
  readonly failure = $derived.by(() => this.#year.error);
  readonly retry = (): void => void this.#year.load({ clear: true });
  readonly deadlines = $derived.by(() => deadlineStates(this.settings?.deadlines ?? [], this.plans ?? [], this.figures, today()));

  constructor(query: () => DashboardQuery) {
    this.#year = new Loader(async (signal) => {
      const { year, me, district } = query();
      const [list, settings, figures] = await Promise.all([
        // A district's list is fetched a table's worth at a time; a person's own few plans in full.
        api.plans(year, signal, district ? { page: 1, limit: DASHBOARD_ROWS } : undefined),
        api.schoolYear(year, signal),
        district ? api.yearFigures(year, signal) : Promise.resolve(null),
      ]);
      if (!district) void this.details.load(list.forms, me, signal);
      return { plans: list.forms, total: list.total, settings, figures };
    }, 'Your dashboard could not be loaded.');
  }

  /** For `$effect`: the year's reading, again when the year changes; the plans read in full stop with it. */
  follow(): () => void {
    const stop = this.#year.follow();
    return () => {
      stop();
      this.details.destroy();
    };
  }
}
