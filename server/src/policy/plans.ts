import type { plans, planShares } from '../storage/schema.ts';
import type { UserRow } from '../storage/rows.ts';

type Actor = Pick<UserRow, 'id' | 'email' | 'level' | 'schoolName'>;
type Plan = Pick<typeof plans.$inferSelect, 'schoolName' | 'userId' | 'principalEmail' | 'assignedTo' | 'sharedWithEmails'>;
type Share = Pick<typeof planShares.$inferSelect, 'permission' | 'sections'> | null;

export interface PlanAccess {
  read: boolean;
  /** May write at least one step (see `editSections`). */
  edit: boolean;
  /** Steps the caller may read or edit when only a section-limited share grants it; null means every step. */
  readSections: string[] | null;
  editSections: string[] | null;
  /** Sees and joins presence and step locks. */
  presence: boolean;
  /** The plan's principal: level 4 of its school, or its `principalEmail`. */
  principal: boolean;
  owner: boolean;
  superAdmin: boolean;
}

/**
 * The one place that answers "may this user do this to this plan?" (docs/access-rules.md).
 * `share` is the actor's row in plan_shares for this plan, if any.
 */
export function planAccess(actor: Actor, plan: Plan, share: Share): PlanAccess {
  const superAdmin = actor.level === 5;
  const owner = plan.userId === actor.id;
  const sameSchool = actor.schoolName === plan.schoolName;
  const principal = (actor.level === 4 && sameSchool) || (plan.principalEmail !== null && plan.principalEmail === actor.email);
  const emailShared = plan.sharedWithEmails.includes(actor.email) || plan.assignedTo === actor.email;
  const shareSections = share && share.sections.length > 0 ? share.sections : null;

  // Level 3 gets nothing from the school name alone: only shares and e-mail shares.
  const fullEdit = superAdmin || owner || principal || emailShared;
  const fullRead = fullEdit || (actor.level === 2 && sameSchool);
  const edit = fullEdit || share?.permission === 'edit';
  return {
    read: fullRead || share !== null,
    edit,
    readSections: fullRead ? null : shareSections,
    editSections: fullEdit ? null : shareSections,
    presence: fullEdit || share !== null || (sameSchool && actor.level >= 2 && actor.level <= 4),
    principal,
    owner,
    superAdmin,
  };
}

export function canReadStep(access: PlanAccess, stepKey: string): boolean {
  return access.read && (access.readSections === null || access.readSections.includes(stepKey));
}

/** Edit rights on one step: section-limited shares cover only their steps. */
export function canEditStep(access: PlanAccess, stepKey: string): boolean {
  return access.edit && (access.editSections === null || access.editSections.includes(stepKey));
}

/** Metadata (school, principal, assignee) changes: the school's principal or a Super Admin. */
export function canManagePlan(access: PlanAccess): boolean {
  return access.superAdmin || access.principal;
}

/** Sharing from the admin share route: level 4 of the plan's school, or a Super Admin. */
export function canSharePlan(actor: Actor, plan: Plan): boolean {
  return actor.level === 5 || (actor.level === 4 && actor.schoolName === plan.schoolName);
}
