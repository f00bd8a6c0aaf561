import { eq, sql } from 'drizzle-orm';
import { MAIL_KINDS, deliveryOf, type MailKind, type MailPreferences, type MailSettings } from '@csp/shared/mail';
import type { Database } from '../../storage/database.ts';
import { users } from '../../storage/schema.ts';
import type { UserRow } from '../../storage/rows.ts';
import { notFound } from '../../errors.ts';
import { readUnsubscribeToken } from '../../mail/unsubscribeToken.ts';

/** A person's choices as stored now (a session's copy of the user may be seconds old). */
export async function readMailSettings(db: Database, userId: string): Promise<MailSettings> {
  const [user] = await db.select({ email: users.email, mailPreferences: users.mailPreferences }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw notFound('User not found');
  return mailSettingsOf(user);
}

/** Every kind with its delivery, the default filled in. */
function mailSettingsOf(user: Pick<UserRow, 'email' | 'mailPreferences'>): MailSettings {
  return {
    email: user.email,
    preferences: Object.fromEntries(MAIL_KINDS.map((kind) => [kind, deliveryOf(user.mailPreferences, kind)])) as MailSettings['preferences'],
  };
}

/** The signed-in person's own choices, merged into what they had (kinds not sent keep theirs). */
export async function updateMailPreferences(db: Database, user: UserRow, changes: MailPreferences): Promise<MailSettings> {
  const [updated] = await db
    .update(users)
    .set({ mailPreferences: sql`${users.mailPreferences} || ${JSON.stringify(changes)}::jsonb`, updatedAt: new Date() })
    .where(eq(users.id, user.id))
    .returning();
  if (!updated) throw notFound('User not found');
  return mailSettingsOf(updated);
}

/**
 * One-click unsubscribe from a signed link (no sign-in): its kind is turned off; a digest's link
 * turns off every kind the person takes in digests. An invalid or foreign token is a 404.
 */
export async function unsubscribe(db: Database, secret: string, token: string): Promise<{ email: string; kind: MailKind | 'digest'; turnedOff: MailKind[] }> {
  const named = readUnsubscribeToken(secret, token);
  if (!named) throw notFound('This unsubscribe link is not valid');
  return db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, named.userId)).limit(1).for('update');
    if (!user) throw notFound('This unsubscribe link is not valid');
    const turnedOff = named.kind === 'digest' ? MAIL_KINDS.filter((kind) => deliveryOf(user.mailPreferences, kind) === 'digest') : [named.kind];
    const changes = Object.fromEntries(turnedOff.map((kind) => [kind, 'off']));
    await tx
      .update(users)
      .set({ mailPreferences: { ...user.mailPreferences, ...changes } })
      .where(eq(users.id, user.id));
    return { email: user.email, kind: named.kind, turnedOff };
  });
}
