import { and, asc, eq, gt, inArray, lt, lte, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { mailMessages } from '../../storage/schema.ts';
import type { MailMessageRow } from '../../storage/rows.ts';
import type { SendOutcome } from '../../mail/smtpTransport.ts';
import { notFound, invalidInput } from '../../errors.ts';

/** Advisory lock that makes claims take turns, so the per-minute bound holds across processes. */
const CLAIM_LOCK = 7_321_033;
/** How long a sender holds what it claimed; renewed after each message it sends. */
const LEASE_MS = 5 * 60_000;
const MAX_ATTEMPTS = 8;
const RETRY_BASE_MS = 60_000;
const RETRY_MAX_MS = 60 * 60_000;

/** One minute, then doubling per attempt up to an hour. */
const retryDelayMs = (attempts: number) => Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));

/**
 * Claims due messages for one sender: at most `batch`, and no more than the per-minute bound leaves
 * (attempts of the last minute by every process count). Claimed rows are `sending`, leased to
 * `owner`: no other sender takes them (they are locked while claimed, and skipped once leased).
 */
export async function claimDueMessages(db: Database, owner: string, now: Date, ratePerMinute: number, batch: number): Promise<MailMessageRow[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
    const [{ recent } = { recent: 0 }] = await tx
      .select({ recent: sql<number>`count(*)::int` })
      .from(mailMessages)
      .where(gt(mailMessages.lastAttemptAt, new Date(now.getTime() - 60_000)));
    const allowance = Math.min(batch, ratePerMinute - recent);
    if (allowance <= 0) return [];
    const due = await tx
      .select({ id: mailMessages.id })
      .from(mailMessages)
      .where(and(eq(mailMessages.status, 'queued'), lte(mailMessages.nextAttemptAt, now)))
      .orderBy(asc(mailMessages.nextAttemptAt))
      .limit(allowance)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(mailMessages)
      .set({
        status: 'sending',
        leaseOwner: owner,
        leaseUntil: new Date(now.getTime() + LEASE_MS),
        lastAttemptAt: now,
        attempts: sql`${mailMessages.attempts} + 1`,
      })
      .where(
        inArray(
          mailMessages.id,
          due.map((row) => row.id),
        ),
      )
      .returning();
  });
}

/**
 * Records what the SMTP server did with a message the sender holds, and extends the sender's lease
 * on the rest of its batch. A refusal is retried later (up to MAX_ATTEMPTS, never after a permanent
 * one); a message sent without an answer is left `in_doubt`, never sent again on its own.
 */
export async function recordOutcome(
  db: Database,
  owner: string,
  message: Pick<MailMessageRow, 'id' | 'attempts'>,
  outcome: SendOutcome,
  now: Date,
): Promise<void> {
  const held = and(eq(mailMessages.id, message.id), eq(mailMessages.leaseOwner, owner), eq(mailMessages.status, 'sending'));
  const released = { leaseOwner: null, leaseUntil: null };
  await db.transaction(async (tx) => {
    switch (outcome.result) {
      case 'sent':
        await tx
          .update(mailMessages)
          .set({ ...released, status: 'sent', sentAt: now, lastError: null })
          .where(held);
        break;
      case 'refused': {
        const failed = outcome.permanent || message.attempts >= MAX_ATTEMPTS;
        await tx
          .update(mailMessages)
          .set({
            ...released,
            status: failed ? 'failed' : 'queued',
            lastError: outcome.error,
            nextAttemptAt: new Date(now.getTime() + retryDelayMs(message.attempts)),
          })
          .where(held);
        break;
      }
      case 'inDoubt':
        await tx
          .update(mailMessages)
          .set({ ...released, status: 'in_doubt', lastError: `No answer after the message was sent: ${outcome.error}` })
          .where(held);
        break;
      case 'notTried':
        await tx
          .update(mailMessages)
          .set({ ...released, status: 'queued', attempts: sql`${mailMessages.attempts} - 1`, lastAttemptAt: null })
          .where(held);
        break;
    }
    await tx
      .update(mailMessages)
      .set({ leaseUntil: new Date(now.getTime() + LEASE_MS) })
      .where(and(eq(mailMessages.leaseOwner, owner), eq(mailMessages.status, 'sending')));
  });
}

/**
 * Messages whose sender stopped holding them (its process ended between handing a message to the
 * SMTP server and recording the answer) may have been delivered: they become `in_doubt` rather than
 * being sent again. A Super Admin may send one again from the System page.
 */
export async function settleExpiredLeases(db: Database, now: Date): Promise<number> {
  const settled = await db
    .update(mailMessages)
    .set({ status: 'in_doubt', leaseOwner: null, leaseUntil: null, lastError: 'The sending process stopped before the SMTP server’s answer was recorded' })
    .where(and(eq(mailMessages.status, 'sending'), lt(mailMessages.leaseUntil, now)))
    .returning({ id: mailMessages.id });
  return settled.length;
}

/** A failed or in-doubt message queued again at once (a Super Admin's decision). */
export async function requeueMessage(db: Database, id: string): Promise<MailMessageRow> {
  const [row] = await db.select().from(mailMessages).where(eq(mailMessages.id, id)).limit(1);
  if (!row) throw notFound('Message not found');
  if (row.status !== 'failed' && row.status !== 'in_doubt')
    throw invalidInput(`Only a failed or in-doubt message can be sent again (this one is ${row.status})`);
  const [updated] = await db
    .update(mailMessages)
    .set({ status: 'queued', attempts: 0, nextAttemptAt: new Date(), lastError: null })
    .where(and(eq(mailMessages.id, id), eq(mailMessages.status, row.status)))
    .returning();
  return updated ?? row;
}
