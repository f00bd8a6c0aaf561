import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { deliveryOf, type MailItemData, type MailKind, type UnsubscribeKind } from '@csp/shared/mail';
import type { Database } from '../../storage/database.ts';
import { mailMessages, mailOutbox, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import { digestLetterOf, letterOf, renderLetter, type Letter } from '../../mail/render.ts';
import { unsubscribeToken } from '../../mail/unsubscribeToken.ts';

/** What composing needs of the configuration: the app's address, the signing secret, where mail goes. */
export interface MailSetup {
  appUrl: string;
  secret: string;
  transport: 'smtp' | 'mailbox' | 'held';
}

/** Items composed per transaction: each is locked while it is turned into its message. */
const COMPOSE_BATCH = 200;

/** The signed one-click unsubscribe address the List-Unsubscribe header gives mail clients (they POST it). */
const unsubscribeApiUrl = (setup: MailSetup, userId: string, kind: UnsubscribeKind) =>
  `${setup.appUrl}/api/mail/unsubscribe/${unsubscribeToken(setup.secret, userId, kind)}`;
/** The page a person opens from the e-mail's own unsubscribe link. */
const unsubscribePageUrl = (setup: MailSetup, userId: string, kind: UnsubscribeKind) =>
  `${setup.appUrl}/unsubscribe/${unsubscribeToken(setup.secret, userId, kind)}`;

interface Recipient {
  id: string;
  email: string;
}

function messageRow(setup: MailSetup, key: string, recipient: Recipient, kind: UnsubscribeKind, letter: Letter, createdAt: Date) {
  const rendered = renderLetter(letter, kind, { appUrl: setup.appUrl, unsubscribeUrl: unsubscribePageUrl(setup, recipient.id, kind) });
  return {
    id: newId(),
    key,
    userId: recipient.id,
    toAddress: recipient.email,
    subject: rendered.subject,
    text: rendered.text,
    html: rendered.html,
    headers: {
      'List-Unsubscribe': `<${unsubscribeApiUrl(setup, recipient.id, kind)}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'Auto-Submitted': 'auto-generated',
    },
    // Dated by the event (a digest by its last), so the mailbox orders messages as things happened.
    createdAt,
    // Without SMTP outside production, the message is kept for the development mailbox.
    status: setup.transport === 'mailbox' ? ('kept' as const) : ('queued' as const),
  };
}

const pendingWith = (db: Database) =>
  db
    .select({ item: mailOutbox, email: users.email, active: users.isActive, demo: users.isDemo, preferences: users.mailPreferences })
    .from(mailOutbox)
    .innerJoin(users, eq(users.id, mailOutbox.userId));

/**
 * Pending items whose person takes that kind at once become one message each; items of people
 * who turned the kind off, or who are inactive, are skipped. Items for digests wait for the daily
 * run. Several processes may run this together: each item is locked by the one composing it.
 * Returns how many items were settled.
 */
export async function composeImmediate(db: Database, setup: MailSetup): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await pendingWith(tx)
      .where(and(eq(mailOutbox.state, 'pending'), sql`coalesce(${users.mailPreferences} ->> ${mailOutbox.kind}, 'immediate') <> 'digest'`))
      .orderBy(asc(mailOutbox.createdAt))
      .limit(COMPOSE_BATCH)
      .for('update', { of: mailOutbox, skipLocked: true });
    if (rows.length === 0) return 0;
    const skipped = rows.filter((row) => !row.active || row.demo || deliveryOf(row.preferences, row.item.kind as MailKind) === 'off');
    const sending = rows.filter((row) => !skipped.includes(row));
    if (skipped.length) {
      await tx
        .update(mailOutbox)
        .set({ state: 'skipped' })
        .where(
          inArray(
            mailOutbox.id,
            skipped.map((row) => row.item.id),
          ),
        );
    }
    if (sending.length) {
      const messages = sending.map((row) =>
        messageRow(
          setup,
          `item:${row.item.key}`,
          { id: row.item.userId, email: row.email },
          row.item.kind as MailKind,
          letterOf(setup.appUrl, row.item.data),
          row.item.createdAt,
        ),
      );
      await tx.insert(mailMessages).values(messages).onConflictDoNothing({ target: mailMessages.key });
      // Each item points at its message (the one just written, or one an earlier attempt wrote).
      await tx.execute(sql`update ${mailOutbox} set state = 'composed', message_id = m.id from ${mailMessages} m
        where m.key = 'item:' || ${mailOutbox.key} and ${inArray(
          mailOutbox.id,
          sending.map((row) => row.item.id),
        )}`);
    }
    return rows.length;
  });
}

/**
 * The daily digest: each person's pending digest items from before `cutoff`, one message per person
 * and day (`digest:<userId>:<day>`, so a second run of the same day adds none).
 */
export async function composeDigests(db: Database, setup: MailSetup, day: string, cutoff: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await pendingWith(tx)
      .where(and(eq(mailOutbox.state, 'pending'), lt(mailOutbox.createdAt, cutoff), sql`${users.mailPreferences} ->> ${mailOutbox.kind} = 'digest'`))
      .orderBy(asc(mailOutbox.userId), asc(mailOutbox.createdAt))
      .for('update', { of: mailOutbox, skipLocked: true });
    const byUser = new Map<string, typeof rows>();
    for (const row of rows) byUser.set(row.item.userId, [...(byUser.get(row.item.userId) ?? []), row]);
    for (const [userId, items] of byUser) {
      const first = items[0]!;
      const ids = items.map((row) => row.item.id);
      if (!first.active || first.demo) {
        await tx.update(mailOutbox).set({ state: 'skipped' }).where(inArray(mailOutbox.id, ids));
        continue;
      }
      const kinds = new Set(items.map((row) => row.item.kind as MailKind));
      // A digest of one kind unsubscribes from that kind; a mixed one from digests as a whole.
      const kind: UnsubscribeKind = kinds.size === 1 ? [...kinds][0]! : 'digest';
      const letter = digestLetterOf(
        setup.appUrl,
        items.map((row) => row.item.data as MailItemData),
      );
      const [message] = await tx
        .insert(mailMessages)
        .values(messageRow(setup, `digest:${userId}:${day}`, { id: userId, email: first.email }, kind, letter, items.at(-1)!.item.createdAt))
        .onConflictDoNothing({ target: mailMessages.key })
        .returning({ id: mailMessages.id });
      // Already a digest today: these wait for tomorrow's.
      if (message) await tx.update(mailOutbox).set({ state: 'composed', messageId: message.id }).where(inArray(mailOutbox.id, ids));
    }
    return rows.length;
  });
}
