import { MAIL_KIND_OF, type MailItemData } from '@csp/shared/mail';
import type { Database } from '../../storage/database.ts';
import { mailOutbox } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';

/** One person to be told about one event by e-mail. */
export interface MailItem {
  userId: string;
  /**
   * Names the event and the person (`comment:<id>:<userId>`): the same key twice is one e-mail,
   * so a retried or repeated write never mails anyone twice.
   */
  key: string;
  data: MailItemData;
}

/**
 * Puts e-mail in the outbox. Pass the transaction of the change that causes it: the e-mail exists
 * exactly when the change does. Whether and when it is sent (at once, in a digest, not at all) is
 * decided later by the person's preferences as they are then.
 */
export async function enqueueMail(tx: Database, items: MailItem[]): Promise<void> {
  if (items.length === 0) return;
  await tx
    .insert(mailOutbox)
    .values(items.map((item) => ({ id: newId(), key: item.key, userId: item.userId, kind: MAIL_KIND_OF[item.data.type], data: item.data })))
    .onConflictDoNothing({ target: mailOutbox.key });
}
