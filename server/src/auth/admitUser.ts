import { eq } from 'drizzle-orm';
import type { Services } from '../services.ts';
import { users } from '../storage/schema.ts';
import type { UserRow } from '../storage/rows.ts';

export type SignInRefusal = 'domain' | 'unknown' | 'inactive' | 'demo';

/** Who may sign in: the district's domain, a known user, active, and not a demo user. */
export async function admitUser({ storage, config }: Services, email: string): Promise<{ user: UserRow } | { refused: SignInRefusal }> {
  const normalized = email.trim().toLowerCase();
  if (!normalized.endsWith(`@${config.allowedEmailDomain}`)) return { refused: 'domain' };
  const [user] = await storage.db.select().from(users).where(eq(users.email, normalized)).limit(1);
  if (!user) return { refused: 'unknown' };
  if (user.isActive === false) return { refused: 'inactive' };
  if (user.isDemo) return { refused: 'demo' };
  return { user };
}

/** Notes a completed sign-in on the user's record (the admin list's "never signed in" reads it). */
export async function recordSignIn({ storage }: Services, userId: string): Promise<void> {
  await storage.db.update(users).set({ lastSignedInAt: new Date() }).where(eq(users.id, userId));
}
