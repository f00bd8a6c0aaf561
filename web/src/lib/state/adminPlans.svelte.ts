import type { PlanListItem } from '@csp/shared/api/forms';
import type { YearFigures } from '@csp/shared/api/reports';
import { api } from '#lib/api/index.ts';
import { adminPlans } from '#lib/api/admin/plans.ts';
import type { PlanFilters } from '#lib/admin/planList.ts';
import { Loader } from './loader.svelte.ts';

/** The admin plan list: the page of plans the filters ask for, and the year's counts by status. */
export class AdminPlansPage {
  readonly #list: Loader<{ forms: PlanListItem[]; total: number }>;
  readonly #figures: Loader<YearFigures>;
  /** Every plan seen while selecting (a selection can span pages): names for the outcomes. Never rendered. */
  readonly seen: Record<string, PlanListItem> = {};

  readonly list = $derived.by(() => this.#list.value);
  readonly figures = $derived.by(() => this.#figures.value);
  readonly failure = $derived.by(() => this.#list.error);

  /** `filters`: the list's request; `year`: the year counted (the counts do not follow the other filters). */
  constructor(filters: () => PlanFilters, year: () => string) {
    this.#list = new Loader(async (signal) => {
      const answer = await adminPlans.list(filters(), signal);
      for (const plan of answer.forms) this.seen[plan._id] = plan;
      return answer;
    }, 'The plans could not be loaded.');
    this.#figures = new Loader((signal) => api.yearFigures(year(), signal), 'The year’s figures could not be loaded.');
  }

  /** For `$effect`s: each read again when what it depends on changes; what is shown stays meanwhile. */
  followList = (): (() => void) => this.#list.follow({ clear: false });
  followFigures = (): (() => void) => this.#figures.follow({ clear: false });

  /** After a change to a plan (or Try again): the page and the counts read again. */
  readonly reload = (): void => {
    void this.#list.load();
    void this.#figures.load();
  };
}
