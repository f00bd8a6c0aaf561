import type { Services } from '../../services.ts';
import { users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { isUniqueViolation } from '../../storage/errors.ts';
import { conflict } from '../../errors.ts';
import { recordAudit, type Caller } from '../audit/recordAudit.ts';
import type { UserRow } from '../../storage/rows.ts';
import { authorize } from '../../policy/index.ts';

export interface NewUser {
  name: string;
  email: string;
  level: number;
  schoolName: string;
  title?: string | undefined;
  isActive?: boolean;
}

/** Creates a user the caller may create; an existing e-mail is a 409. */
export async function createUser({ storage }: Services, caller: Caller, input: NewUser): Promise<UserRow> {
  const actor = caller.auth.actor;
  authorize(actor, 'createUserAtLevel', input.level);
  authorize(actor, 'createUserForSchool', input.schoolName);
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
