import { LEVEL, PLAN_STATUS_LABELS, answersOpenIn } from '@csp/shared';
import type { plans, planShares } from '../storage/schema.ts';
import { rule, type Actor } from './rule.ts';

type Plan = Pick<typeof plans.$inferSelect, 'schoolName' | 'userId' | 'principalEmail' | 'assignedTo' | 'sharedWithEmails' | 'status'>;
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

/** Reads every plan of the actor's own school: its principals (who also edit them) and coordinators. */
const readsWholeSchool = (actor: Actor) => actor.level === LEVEL.principal || actor.level === LEVEL.coordinator;

/**
 * What the actor is to this plan, from which every plan ability below is answered
 * (docs/access-rules.md). `share` is the actor's row in plan_shares for this plan, if any.
 */
export function planAccess(actor: Actor, plan: Plan, share: Share): PlanAccess {
  const superAdmin = actor.level === LEVEL.superAdmin;
  const owner = plan.userId === actor.id;
  const sameSchool = actor.schoolName === plan.schoolName;
  const principal = (actor.level === LEVEL.principal && sameSchool) || (plan.principalEmail !== null && plan.principalEmail === actor.email);
  const emailShared = plan.sharedWithEmails.includes(actor.email) || plan.assignedTo === actor.email;
  const shareSections = share && share.sections.length > 0 ? share.sections : null;

  // Level 3 gets nothing from the school name alone: only shares and e-mail shares.
  const fullEdit = superAdmin || owner || principal || emailShared;
  const fullRead = fullEdit || (readsWholeSchool(actor) && sameSchool);
  const edit = fullEdit || share?.permission === 'edit';
  return {
    read: fullRead || share !== null,
    edit,
    readSections: fullRead ? null : shareSections,
    editSections: fullEdit ? null : shareSections,
    presence: fullEdit || share !== null || (sameSchool && actor.level >= LEVEL.coordinator && actor.level <= LEVEL.principal),
    principal,
    owner,
    superAdmin,
  };
}

/** A plan as the asking actor sees it (its `PlanContext`). */
interface PlanSubject {
  plan: Plan;
  access: PlanAccess;
}

/** One step of a plan. */
interface StepSubject {
  plan: PlanSubject;
  stepKey: string;
}

const readsStep = ({ plan, stepKey }: StepSubject) => plan.access.read && (plan.access.readSections === null || plan.access.readSections.includes(stepKey));
/** Section-limited shares cover only their steps. */
const editsStep = ({ plan, stepKey }: StepSubject) => plan.access.edit && (plan.access.editSections === null || plan.access.editSections.includes(stepKey));
/** Edit rights on every step: what the plan-wide actions (submit, duplicate) need. */
const editsWholePlan = ({ access }: PlanSubject) => access.edit && access.editSections === null;

/** What may be done to one plan, answered from the access computed above. */
export const planRules = {
  /** Any write to the plan: its year is live, or it has the archived-year override. */
  writePlan: rule<PlanSubject & { writable: boolean }>((_actor, { writable }) => writable, 'This school year is archived; the plan is read-only'),
  /**
   * The plan's answers may change (step saves, the live document, review flags, attestation): its
   * year is writable and the plan is not with the district (DESIGN: the plan lifecycle).
   */
  changeAnswers: rule<PlanSubject & { writable: boolean }>(
    (_actor, { writable, plan }) => writable && answersOpenIn(plan.status),
    ({ writable, plan }) =>
      !writable
        ? 'This school year is archived; the plan is read-only'
        : `This plan is ${PLAN_STATUS_LABELS[plan.status].toLowerCase()}: its answers cannot change unless the district returns it for changes`,
  ),
  readPlan: rule<PlanSubject>((_actor, { access }) => access.read),
  editPlan: rule<PlanSubject>((_actor, { access }) => access.edit),
  readStep: rule<StepSubject>((_actor, step) => readsStep(step)),
  editStep: rule<StepSubject>((_actor, step) => editsStep(step)),
  /** Only the holder releases a step lock; anyone's lock lapses on its own. */
  releaseStepLock: rule<{ lockedBy: { userId: string } }>((actor, lock) => lock.lockedBy.userId === actor.id, 'Only the lock holder can release this lock'),
  /** Who is on the plan, and its step locks. */
  seePresence: rule<PlanSubject>((_actor, { access }) => access.presence),
  /** Hearing the plan's live events (its realtime room): its readers, and those who see its presence. */
  followPlan: rule<PlanSubject>((_actor, { access }) => access.read || access.presence),
  /** Metadata (school, principal, assignee) changes: the school's principal or a Super Admin. */
  managePlan: rule<PlanSubject>((_actor, { access }) => access.superAdmin || access.principal),
  movePlanToSchool: rule<PlanSubject>((_actor, { access }) => access.superAdmin, 'Only a Super Admin can move a plan to another school'),
  submitPlan: rule<PlanSubject>((_actor, plan) => editsWholePlan(plan)),
  duplicatePlan: rule<PlanSubject>((actor, plan) => actor.level >= LEVEL.principal && editsWholePlan(plan)),
  reviewPlan: rule<PlanSubject>((_actor, { access }) => access.superAdmin, 'Only a Super Admin reviews plans'),
  attestPlan: rule<PlanSubject>((_actor, { access }) => access.principal, 'Only the plan’s principal can attest'),
  commentOnPlan: rule<PlanSubject>((_actor, { access }) => access.superAdmin, 'Only a Super Admin comments on plans'),
  /** Marking a thread read, resolving (`fixed`) and reopening it: the plan's editors (the school, on its own plan) and Super Admins. */
  setCommentStatus: rule<PlanSubject>((_actor, { access }) => access.edit || access.superAdmin),
  /** Replying in a thread, and looking up whom to mention: the reviewers and the plan's editors. */
  replyToThread: rule<PlanSubject>((_actor, { access }) => access.edit || access.superAdmin, 'Only the plan’s editors and reviewers reply to its threads'),
  /** Sharing with staff: level 4 of the plan's school, or a Super Admin. */
  sharePlan: rule<PlanSubject>(
    (actor, { plan }) => actor.level === LEVEL.superAdmin || (actor.level === LEVEL.principal && actor.schoolName === plan.schoolName),
  ),
};

/**
 * The plans a user may list, as a rule lists turn into SQL: every plan for a Super Admin (`all`),
 * else the actor's own (owned, principal of, assigned, shared, e-mail shared) and, for those who
 * read the whole school (principals, coordinators), every plan of the school: what `planAccess` lets
 * them read, no more and no less.
 */
export function visiblePlansOf(actor: Actor): { all: true } | { all: false; schoolName: string | null } {
  if (actor.level === LEVEL.superAdmin) return { all: true };
  return { all: false, schoolName: readsWholeSchool(actor) ? actor.schoolName : null };
}
