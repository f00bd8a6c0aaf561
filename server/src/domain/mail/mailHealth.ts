import { and, desc, eq, inArray, isNotNull, or, sql } from 'drizzle-orm';
import type { MailHealth } from '@csp/shared/mail';
import type { MailConfig } from '../../config.ts';
import { rowsOf, type Database } from '../../storage/database.ts';
import { mailMessages, mailOutbox } from '../../storage/schema.ts';

/** The district's outbound mail for the System page: the queue, the last day's sending, what failed or waits to be retried. */
export async function mailHealth(db: Database, config: MailConfig): Promise<MailHealth> {
  const [[counts], failures] = await Promise.all([
    rowsOf<Record<string, number>>(
      db,
      sql`select
        (select count(*)::int from ${mailOutbox} where state = 'pending') as "pendingItems",
        (select count(*)::int from ${mailMessages} where status = 'queued') as queued,
        (select count(*)::int from ${mailMessages} where status = 'sending') as sending,
        (select count(*)::int from ${mailMessages} where status = 'sent' and sent_at > now() - interval '1 day') as "sentLastDay",
        (select count(*)::int from ${mailMessages} where status = 'failed') as failed,
        (select count(*)::int from ${mailMessages} where status = 'in_doubt') as "inDoubt"`,
    ),
    db
      .select()
      .from(mailMessages)
      .where(or(inArray(mailMessages.status, ['failed', 'in_doubt']), and(eq(mailMessages.status, 'queued'), isNotNull(mailMessages.lastError))))
      .orderBy(sql`${mailMessages.lastAttemptAt} desc nulls last`, desc(mailMessages.createdAt))
      .limit(10),
  ]);
  const c = counts ?? {};
  const number = (key: string) => Number(c[key] ?? 0);
  // Failures need a person; a queue held for want of SMTP in production too.
  const degraded = number('failed') > 0 || number('inDoubt') > 0 || config.transport === 'held';
  return {
    status: degraded ? 'degraded' : 'ok',
    transport: config.transport,
    pendingItems: number('pendingItems'),
    queued: number('queued'),
    sending: number('sending'),
    sentLastDay: number('sentLastDay'),
    failed: number('failed'),
    inDoubt: number('inDoubt'),
    ratePerMinute: config.ratePerMinute,
    recentFailures: failures.map((row) => ({
      _id: row.id,
      to: row.toAddress,
      subject: row.subject,
      status: row.status,
      attempts: row.attempts,
      lastError: row.lastError,
      at: (row.lastAttemptAt ?? row.createdAt).toISOString(),
    })),
  };
}
