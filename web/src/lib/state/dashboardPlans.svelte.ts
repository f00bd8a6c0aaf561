import type { Step } from '@csp/shared';
import type { PlanListItem } from '@csp/shared/api/forms';
import { api } from '#lib/api/index.ts';
import { PlanState } from './plan.svelte.ts';

/** Plans read in full for their progress: a principal's or a teacher's few, never a district's list. */
const DETAILED_PLANS = 10;

/**
 * The dashboard's closer look at a person's own plans: each read in full once (required questions
 * answered, open comments, who is on it, who has access), then kept current by the realtime
 * gateway. The plans are watched, not joined, so the reader does not appear on them.
 */
export class DashboardPlans {
  plans = $state.raw<PlanState[]>([]);
  /** Plans that could not be read in full (their row shows the list's figures only). */
  failed = $state(0);
  loaded = $state(false);

  async load(summaries: PlanListItem[], me: string, signal: AbortSignal): Promise<void> {
    this.destroy();
    // Plans of one year usually share a bank version: each version is read once.
    // A plain Map on purpose: promises, never rendered.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    const banks = new Map<number | null, Promise<Step[]>>();
    const bankSteps = (version: number | null) => {
      if (!banks.has(version))
        banks.set(
          version,
          api.questionBank(version, signal).then((bank) => bank.steps),
        );
      return banks.get(version)!;
    };
    const read = await Promise.all(
      summaries.slice(0, DETAILED_PLANS).map(async (summary) => {
        try {
          const plan = await api.plan(summary._id, signal);
          return new PlanState(plan, await bankSteps(plan.questionBankVersion), [], me);
        } catch {
          return null;
        }
      }),
    );
    const states = read.filter((state): state is PlanState => state !== null);
    if (signal.aborted) {
      for (const state of states) state.destroy();
      return;
    }
    this.plans = states;
    this.failed = read.length - states.length;
    this.loaded = true;
    await Promise.all(states.map((state) => state.watch()));
  }

  of(id: string): PlanState | undefined {
    return this.plans.find((state) => state.id === id);
  }

  destroy(): void {
    for (const state of this.plans) state.destroy();
    this.plans = [];
    this.failed = 0;
    this.loaded = false;
  }
}
