import { describe, expect, it } from 'vitest';
import type { PlanListItem } from '@csp/shared/api/forms';
import type { YearFigures } from '@csp/shared/api/reports';
import { deadlineLabel, deadlineStates, waitingPlans } from './dashboard.ts';

/** The fields these rules read; the rest of a summary does not matter to them. */
const plan = (fields: Partial<PlanListItem>) => ({ schoolName: 'Harbor', status: 'draft', completedSteps: [], ...fields }) as PlanListItem;

describe('deadlineStates', () => {
  const deadlines = [
    { stepKey: 'goals', label: 'Goals', dueDate: '2026-12-20' },
    { stepKey: 'attendancePlan', label: 'Attendance', dueDate: '2026-11-01' },
    { stepKey: 'budget', label: 'Budget', dueDate: '2026-12-05' },
  ];

  it("counts the person's own plans that have not completed the step, and orders by due date", () => {
    const plans = [plan({ completedSteps: ['goals'] }), plan({ completedSteps: ['goals', 'budget'] })];
    const states = deadlineStates(deadlines, plans, null, '2026-11-28');
    expect(states.map(({ stepKey, open, days, state }) => ({ stepKey, open, days, state }))).toEqual([
      { stepKey: 'attendancePlan', open: 2, days: -27, state: 'overdue' },
      { stepKey: 'budget', open: 1, days: 7, state: 'soon' },
      { stepKey: 'goals', open: 0, days: 22, state: 'done' },
    ]);
  });

  it("takes the district's counts when there are figures, and is later beyond two weeks", () => {
    const figures = { deadlines: [{ stepKey: 'goals', label: 'Goals', dueDate: '2026-12-20', plansNotComplete: 4 }] } as YearFigures;
    const [goals] = deadlineStates([deadlines[0]!], [], figures, '2026-11-28');
    expect(goals).toMatchObject({ open: 4, state: 'later' });
    expect(deadlineLabel(goals!)).toBe('Due in 22 days');
  });

  it('labels an overdue deadline by its open plans', () => {
    expect(deadlineLabel({ ...deadlines[1]!, open: 1, days: -3, state: 'overdue' })).toBe('Overdue for 1 plan');
    expect(deadlineLabel({ ...deadlines[1]!, open: 0, days: -3, state: 'done' })).toBe('Done');
  });
});

describe('waitingPlans', () => {
  it("lists the school's drafts and returned plans; a copy not yet attested needs its attestation first", () => {
    const plans = [
      plan({ _id: 'a', status: 'draft' }),
      plan({ _id: 'b', status: 'rejected', copiedFromId: 'x', attestation: null }),
      plan({ _id: 'c', status: 'submitted' }),
      plan({ _id: 'd', status: 'draft', schoolName: 'Riverside' }),
    ];
    expect(waitingPlans(plans, 'Harbor').map(({ plan, step }) => [plan._id, step])).toEqual([
      ['a', 'Submit'],
      ['b', 'Attest, then submit'],
    ]);
  });
});
