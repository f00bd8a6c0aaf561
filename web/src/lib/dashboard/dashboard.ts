import type { PlanListItem } from '@csp/shared/api/forms';
import type { YearFigures } from '@csp/shared/api/reports';
import type { YearSettings } from '@csp/shared/api/schoolYears';

type Deadline = YearSettings['deadlines'][number];

/** `soon`: due within this many days. */
const SOON_DAYS = 14;

export interface DeadlineState extends Deadline {
  /** Plans that have not completed the step. */
  open: number;
  /** Days until the due date (negative: past it). */
  days: number;
  state: 'done' | 'overdue' | 'soon' | 'later';
}

/**
 * The year's deadlines by due date, each with the plans still to complete its step: the whole
 * district's count when `figures` are given (a Super Admin's), else the person's own `plans`.
 * `today` is a YYYY-MM-DD date.
 */
export function deadlineStates(deadlines: Deadline[], plans: PlanListItem[], figures: YearFigures | null, today: string): DeadlineState[] {
  const daysUntil = (dueDate: string) => Math.round((Date.parse(dueDate) - Date.parse(today)) / 86_400_000);
  return deadlines
    .map((deadline): DeadlineState => {
      const open = figures
        ? (figures.deadlines.find((row) => row.stepKey === deadline.stepKey && row.dueDate === deadline.dueDate)?.plansNotComplete ?? 0)
        : plans.filter((plan) => !plan.completedSteps.includes(deadline.stepKey)).length;
      const days = daysUntil(deadline.dueDate);
      return { ...deadline, open, days, state: open === 0 ? 'done' : days < 0 ? 'overdue' : days <= SOON_DAYS ? 'soon' : 'later' };
    })
    .sort((a, b) => a.dueDate.localeCompare(b.dueDate));
}

/** A deadline's badge text. */
export function deadlineLabel({ state, open, days }: DeadlineState): string {
  if (state === 'done') return 'Done';
  if (state === 'overdue') return `Overdue for ${open} ${open === 1 ? 'plan' : 'plans'}`;
  return `Due in ${days} ${days === 1 ? 'day' : 'days'}`;
}

/** A principal's plans still waiting for them: a copied plan needs its attestation first, then every plan its submission. */
export function waitingPlans(plans: PlanListItem[], schoolName: string): { plan: PlanListItem; step: string }[] {
  return plans
    .filter((plan) => plan.schoolName === schoolName && (plan.status === 'draft' || plan.status === 'rejected'))
    .map((plan) => ({ plan, step: plan.copiedFromId && !plan.attestation?.confirmed ? 'Attest, then submit' : 'Submit' }));
}
