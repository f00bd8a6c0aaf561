import type { UserRow } from '../storage/rows.ts';

/** Who asks: the fields every rule may read. */
export type Actor = Pick<UserRow, 'id' | 'email' | 'level' | 'schoolName'>;

/** One named ability: whether the actor may, and the refusal a 403 carries when not. */
export interface Rule<Subject> {
  allows(actor: Actor, subject: Subject): boolean;
  /** The refusal, or how to word it for this subject. */
  refusal?: string | ((subject: Subject) => string);
}

export const rule = <Subject = undefined>(allows: (actor: Actor, subject: Subject) => boolean, refusal?: Rule<Subject>['refusal']): Rule<Subject> =>
  refusal === undefined ? { allows } : { allows, refusal };
