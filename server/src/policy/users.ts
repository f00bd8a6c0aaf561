import { LEVEL, type Level } from '@csp/shared';
import { rule, type Actor } from './rule.ts';

type Target = Pick<Actor, 'id' | 'level' | 'schoolName'>;

/**
 * Update, delete and permissions: never oneself, only strictly lower levels, and a principal only
 * levels 1 to 3 of the principal's own school.
 */
const managesTarget = (actor: Actor, target: Target): boolean => {
  if (actor.id === target.id || actor.level <= target.level) return false;
  if (actor.level === LEVEL.superAdmin) return true;
  return actor.level === LEVEL.principal && target.level < LEVEL.principal && target.schoolName === actor.schoolName;
};

/** The levels an administrator may give: a principal 1 to 3, a Super Admin any. */
const givesLevel = (actor: Actor, level: number): level is Level =>
  level >= LEVEL.teacher && (actor.level === LEVEL.superAdmin ? level <= LEVEL.superAdmin : actor.level === LEVEL.principal && level < LEVEL.principal);

/** A principal keeps users in the principal's own school. */
const assignsSchool = (actor: Actor, schoolName: string): boolean => actor.level === LEVEL.superAdmin || schoolName === actor.schoolName;

/** What an administrator may do to one user (routes first require `administerUsers`). */
export const userRules = {
  manageUser: rule<Target>(managesTarget),
  createUserAtLevel: rule<number>(givesLevel, 'You cannot create a user at that level'),
  createUserForSchool: rule<string>(assignsSchool, 'You can only create users for your own school'),
  giveLevel: rule<number>(givesLevel, 'You cannot give that level'),
  moveUserToSchool: rule<string>(assignsSchool, 'You can only assign your own school'),
};

/**
 * The users an administrator sees, as a rule lists turn into SQL: everyone for a Super Admin
 * (`null`), else the own school below level 5.
 */
export function visibleUsersOf(actor: Actor): { schoolName: string; belowLevel: number } | null {
  return actor.level === LEVEL.superAdmin ? null : { schoolName: actor.schoolName, belowLevel: LEVEL.superAdmin };
}
