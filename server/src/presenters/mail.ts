import type { MailboxMessage } from '@csp/shared/mail';
import type { MailMessageRow } from '../storage/rows.ts';

export function presentMailboxMessage(row: MailMessageRow): MailboxMessage {
  return {
    _id: row.id,
    to: row.toAddress,
    subject: row.subject,
    text: row.text,
    html: row.html,
    headers: row.headers,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
}
