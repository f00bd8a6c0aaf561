import { desc } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { mailMessages } from '../../storage/schema.ts';
import { countRows, offsetOf, type Paging } from '../../storage/paging.ts';
import type { MailMessageRow } from '../../storage/rows.ts';

/** The development mailbox: every message kept (or sent), newest first, a page at a time. */
export async function listMailbox(db: Database, paging: Paging): Promise<{ messages: MailMessageRow[]; total: number }> {
  const [messages, total] = await Promise.all([
    db.select().from(mailMessages).orderBy(desc(mailMessages.createdAt), desc(mailMessages.id)).limit(paging.limit).offset(offsetOf(paging)),
    countRows(db, mailMessages, undefined),
  ]);
  return { messages, total };
}
