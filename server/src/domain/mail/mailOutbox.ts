import type { EventSubscriber } from '../../events/dispatcher.ts';
import { enqueueMail } from './enqueueMail.ts';

/**
 * The mail outbox as a subscriber: a notification that comes with an e-mail puts that e-mail in
 * the outbox in the notification's own transaction, so the e-mail exists exactly when the change
 * that caused it does. The mail sender takes it from there (mail/mailSender.ts).
 */
export const mailOutbox: EventSubscriber = {
  name: 'mail outbox',
  inTransaction: {
    'notification.created': async ({ notification, mail }, tx) => {
      if (mail) await enqueueMail(tx, [{ userId: notification.userId, key: mail.key, data: mail.data }]);
    },
  },
};
