import type { DomainServices } from '../domainServices.ts';
import { users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { conflict } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { UserRow } from '../../storage/rows.ts';
import type { Authorized } from '../../policy/authorize.ts';

export interface NewUser {
  name: string;
  email: string;
  level: number;
  schoolName: string;
  title?: string | undefined;
  isActive?: boolean;
}

/** Creates a user at a level and school the entry point authorized; an existing e-mail is a 409. */
export async function createUser(
  { storage }: DomainServices,
  caller: Caller,
  input: Authorized<NewUser, 'createUserAtLevel' | 'createUserForSchool'>,
): Promise<UserRow> {
  try {
    return await storage.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(users)
        .values({ id: newId(), ...input, title: input.title ?? null, isActive: input.isActive ?? true })
        .returning();
      await recordAudit(tx, caller, {
        action: 'user.create',
        targetType: 'user',
        targetId: created!.id,
        summary: { after: { email: created!.email, level: created!.level, schoolName: created!.schoolName, isActive: created!.isActive } },
      });
      return created!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('User already exists');
    throw error;
  }
}
