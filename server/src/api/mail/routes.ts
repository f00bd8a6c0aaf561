import Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../services.ts';
import { authOf, superAdminOnly } from '../../auth/gate.ts';
import { parse, pathId } from '../../http/validate.ts';
import { notFound } from '../../errors.ts';
import { operations } from '../../http/operation.ts';
import { readMailSettings, unsubscribe, updateMailPreferences } from '../../domain/mail/mailPreferences.ts';
import { listMailbox } from '../../domain/mail/mailbox.ts';
import { requeueMessage } from '../../domain/mail/deliverMail.ts';
import { presentMailboxMessage } from '../../presenters/mail.ts';
import { pagingSchema, successSchema } from '@csp/shared/api/common';
import {
  mailboxSchema,
  mailPreferencesSchema,
  mailSettingsSchema,
  unsubscribeResponseSchema,
  type Mailbox,
  type MailSettings,
  type UnsubscribeResponse,
} from '@csp/shared/mail';

const operation = operations('E-mail', {
  settings: { summary: 'The caller’s e-mail preferences', responses: { 200: mailSettingsSchema } },
  updateSettings: {
    summary: 'Choose how each kind of e-mail arrives',
    description: 'Each kind: `immediate`, `digest` (one e-mail a day) or `off`. Kinds not sent keep their setting.',
    body: mailPreferencesSchema,
    responses: { 200: mailSettingsSchema },
  },
  unsubscribe: {
    summary: 'One-click unsubscribe from one kind of e-mail',
    description:
      'No session: the signed token of an e-mail’s unsubscribe link (and its `List-Unsubscribe` header, posted by mail clients with `List-Unsubscribe=One-Click`) names the person and the kind.',
    responses: { 200: unsubscribeResponseSchema },
  },
  mailbox: {
    summary: 'The development mailbox',
    description: 'Only while no `SMTP_URL` is set outside production: every message the service wrote, newest first. Otherwise 404.',
    query: pagingSchema,
    responses: { 200: mailboxSchema },
  },
  resend: {
    summary: 'Send a failed or in-doubt message again',
    description: 'Super Admins, from the System page. A message in doubt may then arrive twice.',
    responses: { 200: successSchema },
  },
});

export function mailRoutes(services: Services): Router {
  const router = new Router();
  const db = services.storage.db;

  router.get('/profile/mail', operation.settings, async (ctx) => {
    ctx.body = (await readMailSettings(db, authOf(ctx).user.id)) satisfies MailSettings;
  });

  router.put('/profile/mail', operation.updateSettings, async (ctx) => {
    const changes = parse(mailPreferencesSchema, ctx.request.body);
    ctx.body = (await updateMailPreferences(db, authOf(ctx).user, changes)) satisfies MailSettings;
  });

  router.post('/mail/unsubscribe/:token', operation.unsubscribe, async (ctx) => {
    const token = parse(z.string().max(200), ctx.params.token, 'This unsubscribe link is not valid');
    const done = await unsubscribe(db, services.config.sessionSecret, token);
    ctx.body = { success: true, ...done } satisfies UnsubscribeResponse;
  });

  router.get('/dev/mailbox', operation.mailbox, async (ctx) => {
    if (services.config.mail.transport !== 'mailbox') throw notFound('The development mailbox is only there while no SMTP_URL is set outside production');
    const { messages, total } = await listMailbox(db, parse(pagingSchema, ctx.query));
    ctx.body = { messages: messages.map(presentMailboxMessage), total } satisfies Mailbox;
  });

  router.post('/admin/mail/:messageId/resend', operation.resend, superAdminOnly, async (ctx) => {
    await requeueMessage(db, pathId(ctx.params.messageId, 'Message not found'));
    ctx.body = { success: true };
  });

  return router;
}
