import { LEVEL, type Level } from './roles.ts';

/** The fields the user rules read, of the person acting and of the person acted on. */
export interface Person {
  id: string;
  level: number;
  schoolName: string;
}

const LEVELS: Level[] = [LEVEL.teacher, LEVEL.coordinator, LEVEL.assistantPrincipal, LEVEL.principal, LEVEL.superAdmin];

/**
 * Update, delete and permissions: never oneself, only strictly lower levels, and a principal only
 * levels 1 to 3 of the principal's own school. The server's policy enforces it; the web app offers
 * only what it allows.
 */
export function managesUser(actor: Person, target: Person): boolean {
  if (actor.id === target.id || actor.level <= target.level) return false;
  if (actor.level === LEVEL.superAdmin) return true;
  return actor.level === LEVEL.principal && target.level < LEVEL.principal && target.schoolName === actor.schoolName;
}

/** The levels an administrator may give: a principal 1 to 3, a Super Admin any. */
export const givesLevel = (actor: Person, level: number): level is Level =>
  level >= LEVEL.teacher && (actor.level === LEVEL.superAdmin ? level <= LEVEL.superAdmin : actor.level === LEVEL.principal && level < LEVEL.principal);

export const levelsGivenBy = (actor: Person): Level[] => LEVELS.filter((level) => givesLevel(actor, level));

/** A principal keeps users in the principal's own school. */
export const assignsSchool = (actor: Person, schoolName: string): boolean => actor.level === LEVEL.superAdmin || schoolName === actor.schoolName;

/** The users an administrator sees: everyone for a Super Admin (`null`), else the own school below level 5. */
export const visibleUsersOf = (actor: Person): { schoolName: string; belowLevel: number } | null =>
  actor.level === LEVEL.superAdmin ? null : { schoolName: actor.schoolName, belowLevel: LEVEL.superAdmin };

/** The levels of the users an administrator sees. */
export const levelsSeenBy = (actor: Person): Level[] => {
  const visible = visibleUsersOf(actor);
  return visible ? LEVELS.filter((level) => level < visible.belowLevel) : LEVELS;
};
