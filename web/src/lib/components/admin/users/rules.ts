/**
 * What the page offers a person: the users routes' own rules (shared/src/userRules.ts), read with
 * the web's record shape. The server decides; these keep the page from offering what it would refuse.
 */
import type { User } from '@csp/shared/api/users';
import type { Level } from '@csp/shared/roles';
import { levelsGivenBy, levelsSeenBy, managesUser, type Person } from '@csp/shared/userRules';

type UserFields = Pick<User, '_id' | 'level' | 'schoolName'>;

const person = (user: UserFields): Person => ({ id: user._id, level: user.level, schoolName: user.schoolName });

/** Levels the person may give by create, edit or import. */
export const assignableLevels = (actor: UserFields): Level[] => levelsGivenBy(person(actor));

/** Levels the person can see in the list. */
export const visibleLevels = (actor: UserFields): Level[] => levelsSeenBy(person(actor));

/** Edit, delete, permissions. */
export const canManage = (actor: UserFields, target: UserFields): boolean => managesUser(person(actor), person(target));
