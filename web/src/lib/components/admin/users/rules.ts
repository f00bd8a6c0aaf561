/**
 * What the page offers a person, mirroring the users routes' rules (server/src/policy/users.ts).
 * The server decides; these only keep the page from offering what it would refuse.
 */
import type { User } from '@csp/shared/api/users';
import type { Level } from '@csp/shared/roles';

type Person = Pick<User, '_id' | 'level' | 'schoolName'>;

/** Levels the person may give by create, edit or import: a principal 1 to 3, a Super Admin any. */
export function assignableLevels(actor: Person): Level[] {
  return actor.level === 5 ? [1, 2, 3, 4, 5] : actor.level === 4 ? [1, 2, 3] : [];
}

/** Levels the person can see in the list (a principal: below 5). */
export function visibleLevels(actor: Person): Level[] {
  return actor.level === 5 ? [1, 2, 3, 4, 5] : [1, 2, 3, 4];
}

/** Edit, delete, permissions: never oneself, only lower levels, a principal only levels 1 to 3 of the own school. */
export function canManage(actor: Person, target: Person): boolean {
  if (actor._id === target._id || actor.level <= target.level) return false;
  if (actor.level === 5) return true;
  return actor.level === 4 && target.level <= 3 && target.schoolName === actor.schoolName;
}
