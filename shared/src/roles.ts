export const LEVEL = {
  teacher: 1,
  coordinator: 2,
  assistantPrincipal: 3,
  principal: 4,
  superAdmin: 5,
} as const;

export type Level = 1 | 2 | 3 | 4 | 5;

export const LEVEL_NAMES: Record<Level, string> = {
  1: 'Staff',
  2: 'Coordinator',
  3: 'Assistant Principal',
  4: 'Principal',
  5: 'Super Admin',
};

export const PLAN_STATUSES = ['draft', 'submitted', 'under_review', 'approved', 'rejected'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Statuses as people read them: a returned plan is "Returned for changes", never "Rejected". */
export const PLAN_STATUS_LABELS: Record<PlanStatus, string> = {
  draft: 'Draft',
  submitted: 'Submitted',
  under_review: 'Under review',
  approved: 'Approved',
  rejected: 'Returned for changes',
};

/**
 * Whether a plan's answers may change in this status: while it is with the district (submitted,
 * under review, approved) they hold still, through every door; a draft and a plan returned for
 * changes are editable.
 */
export const answersOpenIn = (status: PlanStatus): boolean => status === 'draft' || status === 'rejected';

/** Collaboration flags a user's `permissions` may carry; anything else is rejected. */
export const COLLABORATION_FLAGS = ['canEditPlans', 'canViewPlans', 'canSharePlans', 'canReceiveTransfers'] as const;
export type CollaborationFlag = (typeof COLLABORATION_FLAGS)[number];
