import { forbidden } from '../errors.ts';
import { can, refusalOf, type Ability, type SubjectArgs, type SubjectOf } from './index.ts';
import type { Actor } from './rule.ts';

/**
 * Where access is decided: entry points (routes, exports, sign-in, socket joins) import this
 * module, domain functions may not (.dependency-cruiser.cjs). A domain function states what it
 * needs in its signature, as an `Authorized` subject or as `Checks`, and only this module makes
 * either (docs/access-rules.md).
 */

/** `can`, or a 403 with the rule's refusal. */
export function authorize<A extends Ability>(actor: Actor, ability: A, ...subject: SubjectArgs<A>): void {
  if (!can(actor, ability, ...subject)) throw forbidden(refusalOf(ability, ...subject));
}

declare const granted: unique symbol;

/** A subject (a plan as the caller sees it, the caller) on which an entry point was granted the abilities `A`. */
export type Authorized<Subject, A extends Ability> = Subject & { readonly [granted]: { readonly [K in A]: true } };

/** The abilities whose subject is `S` itself (the plan abilities for a plan, the subjectless ones for a caller). */
export type AbilityOn<S> = { [A in Ability]: S extends SubjectOf<A> ? A : never }[Ability];
type Subjectless = { [A in Ability]: [SubjectOf<A>] extends [undefined] ? A : never }[Ability];

/** Authorizes each ability on `subject`, in order (the first refused answers 403), and marks it granted. */
export function authorizePlan<S extends object, A extends AbilityOn<S>>(actor: Actor, subject: S, abilities: readonly A[]): Authorized<S, A> {
  for (const ability of abilities) authorize(actor, ability, ...([subject] as unknown as SubjectArgs<A>));
  return subject as Authorized<S, A>;
}

/**
 * Authorizes the caller's own abilities (no subject), in order, and marks the caller granted. They
 * are the acting user's, unless `asking` names the signed-in one (a Super Admin previewing).
 */
export function authorizeCaller<C extends { auth: { actor: Actor } }, A extends Subjectless>(
  caller: C,
  abilities: readonly A[],
  asking: Actor = caller.auth.actor,
): Authorized<C, A> {
  for (const ability of abilities) authorize(asking, ability, ...([] as unknown as SubjectArgs<A>));
  return caller as Authorized<C, A>;
}

/**
 * Authorizes abilities on parts of an input (a new user's level and school: `{ createUserAtLevel:
 * input.level, … }`), in the order given, and marks the input granted.
 */
export function authorizeInput<S extends object, A extends Ability>(actor: Actor, input: S, subjects: { [K in A]: SubjectOf<K> }): Authorized<S, A> {
  for (const [ability, subject] of Object.entries(subjects) as [A, SubjectOf<A>][]) authorize(actor, ability, ...([subject] as SubjectArgs<A>));
  return input as Authorized<S, A>;
}

/**
 * The policy's answers for one actor on rows a domain function reads itself: a user row locked
 * for update, a review flag found under the plan's lock, a plan step read again on a retry. The
 * entry point hands these over; `require` is `authorize`, `allows` is `can`.
 */
export interface Checks<A extends Ability> {
  require<K extends A>(ability: K, ...subject: SubjectArgs<K>): void;
  allows<K extends A>(ability: K, ...subject: SubjectArgs<K>): boolean;
  readonly [granted]: { readonly [K in A]: true };
}

/** `Checks` of `abilities` for `actor`. */
export function checksFor<A extends Ability>(actor: Actor, abilities: readonly A[]): Checks<A> {
  const listed = new Set<Ability>(abilities);
  const known = (ability: Ability) => {
    // A domain function asks only what its signature declares; anything else is a programming error.
    if (!listed.has(ability)) throw new Error(`Checks were not given for ${ability}`);
  };
  return {
    require: (ability, ...subject) => {
      known(ability);
      authorize(actor, ability, ...subject);
    },
    allows: (ability, ...subject) => {
      known(ability);
      return can(actor, ability, ...subject);
    },
  } as Checks<A>;
}
