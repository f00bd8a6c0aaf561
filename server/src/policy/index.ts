import { forbidden } from '../errors.ts';
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
type SubjectOf<A extends Ability> = (typeof rules)[A] extends Rule<infer Subject> ? Subject : never;
/** Abilities without a subject take none. */
type SubjectArgs<A extends Ability> = [SubjectOf<A>] extends [undefined] ? [] : [subject: SubjectOf<A>];

export function can<A extends Ability>(actor: Actor, ability: A, ...[subject]: SubjectArgs<A>): boolean {
  return (rules[ability] as Rule<SubjectOf<A> | undefined>).allows(actor, subject);
}

/** `can`, or a 403 with the rule's refusal. */
export function authorize<A extends Ability>(actor: Actor, ability: A, ...subject: SubjectArgs<A>): void {
  if (can(actor, ability, ...subject)) return;
  const { refusal } = rules[ability] as Rule<SubjectOf<A> | undefined>;
  throw forbidden(typeof refusal === 'function' ? refusal(subject[0]) : refusal);
}

export { planAccess, visiblePlansOf, type PlanAccess } from './plans.ts';
export { visibleUsersOf } from './users.ts';
