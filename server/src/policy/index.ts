import { districtRules } from './district.ts';
import { planRules } from './plans.ts';
import type { Actor, Rule } from './rule.ts';
import { userRules } from './users.ts';

/**
 * Every access decision of the server, by name (docs/access-rules.md): the district's powers, what
 * may be done to a plan and to a user. Lists derive their SQL scope from `visiblePlansOf` and
 * `visibleUsersOf` beside these rules.
 */
const rules = { ...districtRules, ...planRules, ...userRules };

export type Ability = keyof typeof rules;
export type SubjectOf<A extends Ability> = (typeof rules)[A] extends Rule<infer Subject> ? Subject : never;
/** Abilities without a subject take none. */
export type SubjectArgs<A extends Ability> = [SubjectOf<A>] extends [undefined] ? [] : [subject: SubjectOf<A>];

export function can<A extends Ability>(actor: Actor, ability: A, ...[subject]: SubjectArgs<A>): boolean {
  return (rules[ability] as Rule<SubjectOf<A> | undefined>).allows(actor, subject);
}

/** The refusal a 403 carries when `can` says no. */
export function refusalOf<A extends Ability>(ability: A, ...[subject]: SubjectArgs<A>): string | undefined {
  const { refusal } = rules[ability] as Rule<SubjectOf<A> | undefined>;
  return typeof refusal === 'function' ? refusal(subject) : refusal;
}

/**
 * The caller's answers on one plan, as the web app reads them (`userPermission`): the actions
 * that change answers (edit, attest, submit) hold only while the answers may change.
 */
export function planAbilitiesOf(actor: Actor, plan: SubjectOf<'changeAnswers'>) {
  const { access } = plan;
  const answersOpen = can(actor, 'changeAnswers', plan);
  return {
    read: access.read,
    edit: access.edit && answersOpen,
    review: can(actor, 'reviewPlan', plan),
    manage: can(actor, 'managePlan', plan),
    attest: can(actor, 'attestPlan', plan) && answersOpen,
    share: can(actor, 'sharePlan', plan),
    submit: can(actor, 'submitPlan', plan) && answersOpen,
    seePresence: access.presence,
    // Threads are not answers: the school still replies while the district holds the plan.
    discuss: can(actor, 'replyToThread', plan) && can(actor, 'writePlan', plan),
    readOnly: !answersOpen || !access.edit,
  };
}

export { planAccess, visiblePlansOf, type PlanAccess } from './plans.ts';
export { visibleUsersOf } from './users.ts';
