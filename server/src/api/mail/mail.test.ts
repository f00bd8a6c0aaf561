/**
 * Outbound e-mail through a real SMTP server started in this process (smtp-server), read back with
 * mailparser: what a status change, a share and a transfer send and to whom, the headers, the
 * daily digest, one-click unsubscribe, retries after the relay refuses, a sender that stops between
 * sending and recording, two senders on one queue, the per-minute bound, the System page's view,
 * and the development mailbox when no SMTP server is configured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import { HttpClient } from '../../testing/httpClient.ts';
import { SmtpSink, type ReceivedMail } from '../../testing/smtpSink.ts';
import { YEAR, createPlan, planPath } from '../../testing/plans.ts';
import { insertUser, userByEmail } from '../../testing/users.ts';
import { PRINCIPAL_HARBOR, SUPERADMIN } from '../../testing/demoNames.ts';
import { mailMessages, mailOutbox, plans, users } from '../../storage/schema.ts';
import { MailSender } from '../../mail/mailSender.ts';
import { claimDueMessages } from '../../domain/mail/deliverMail.ts';
import { enqueueMail } from '../../domain/mail/enqueueMail.ts';
import { sendOverSmtp, smtpSettingsOf } from '../../mail/smtpTransport.ts';
import { renderLetter, letterOf } from '../../mail/render.ts';
import type { UserRow } from '../../storage/rows.ts';

const sink = new SmtpSink();
let server: TestServer;
let admin: HttpClient;
let principal: HttpClient;
let superAdmin: UserRow;
let harborPrincipal: UserRow;
/** The senders' clock: tests move it forward (retries, leases, the daily hour). */
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const db = () => server.services.storage.db;

/** A turn of the server's own sender. */
const turn = () => server.mail.runOnce();

/** Messages the sink received for `to` since `from` (an index into everything it received). */
const mailTo = (to: string, from = 0) => sink.received.slice(from).filter((mail) => mail.envelopeTo.includes(to));

const header = (mail: ReceivedMail, name: string) => mail.headers.get(name) ?? '';

beforeAll(async () => {
  await sink.start();
  server = await startTestServer({ SMTP_URL: sink.url, MAIL_RATE_PER_MINUTE: '1000', MAIL_DAILY_HOUR: '23' }, { mail: { now, poll: false } });
  [admin, principal] = await signInAll(server.url, [SUPERADMIN, PRINCIPAL_HARBOR]);
  superAdmin = await userByEmail(server, SUPERADMIN);
  harborPrincipal = await userByEmail(server, PRINCIPAL_HARBOR);
});

afterAll(async () => {
  await server?.stop();
  await sink.stop();
});

/** A plan of a made-up school owned by Harbor's principal, submitted by them. */
async function submittedPlan(label: string): Promise<string> {
  const formId = await createPlan(admin, label);
  const submitted = await principal.put(planPath(formId), { action: 'submit' });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
  return formId;
}

describe('what is sent, to whom, and how it reads', () => {
  it('a submission goes to the reviewers; a return to the plan’s editors, with the school and year in the subject and no reason in the mail', async () => {
    const from = sink.received.length;
    const formId = await submittedPlan('Mail Return');
    await turn();
    const [submitted] = mailTo(SUPERADMIN, from);
    expect(submitted, 'the reviewer’s e-mail').toBeDefined();
    const [{ schoolName } = { schoolName: '' }] = await db().select({ schoolName: plans.schoolName }).from(plans).where(eq(plans.id, formId));
    expect(submitted!.subject).toBe(`${schoolName} ${YEAR} plan: ${harborPrincipal.name} submitted the plan for review`);
    // Nobody else learns of a submission by e-mail; the submitter never gets their own.
    expect(mailTo(PRINCIPAL_HARBOR, from)).toHaveLength(0);

    const reason = 'Student Jamie R. needs a safety plan';
    expect((await admin.put(planPath(formId), { action: 'review', status: 'under_review' })).status).toBe(200);
    expect((await admin.put(planPath(formId), { action: 'review', status: 'rejected', comment: reason })).status).toBe(200);
    await turn();
    const returned = mailTo(PRINCIPAL_HARBOR, from);
    expect(returned.map((mail) => mail.subject)).toEqual([`${schoolName} ${YEAR} plan: ${superAdmin.name} returned the plan for changes`]);
    const mail = returned[0]!;
    // Starting the review is not mailed; the reason (which may name a student) is never in the mail.
    expect(mail.text + mail.html).not.toContain('Jamie');
    expect(mail.text).toContain(`${server.services.config.appUrl}/plans/${formId}`);
    expect(mail.html).toContain(`href="${server.services.config.appUrl}/plans/${formId}"`);
    expect(header(mail, 'list-unsubscribe')).toMatch(
      new RegExp(`^<${server.services.config.appUrl}/api/mail/unsubscribe/${harborPrincipal.id}\\.decisions\\.[\\w-]+>$`),
    );
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.messageId).toMatch(/^<[0-9a-f]{24}@127\.0\.0\.1>$/);
    expect(mail.text).toMatch(/Unsubscribe from these e-mails: http:\/\/127\.0\.0\.1:\d+\/unsubscribe\//);
  });

  it('a share and an ownership transfer reach the person concerned, never an inactive one', async () => {
    const from = sink.received.length;
    const formId = await createPlan(admin, 'Mail Share');
    const reader = await insertUser(server, { level: 1, schoolName: 'Elsewhere', name: 'Rita Reader' });
    const gone = await insertUser(server, { level: 1, schoolName: 'Elsewhere', isActive: false });
    const shared = await admin.post('/api/admin/forms/share', { formId, userIds: [reader.id, gone.id], permissions: 'view', sections: [] });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    const newOwner = await insertUser(server, { level: 4, schoolName: 'Elsewhere', name: 'Omar Owner' });
    const transferred = await admin.post('/api/forms/transfer-ownership', { formId, newOwnerEmail: newOwner.email });
    expect(transferred.status, JSON.stringify(transferred.body)).toBe(200);
    await turn();
    expect(mailTo(reader.email, from).map((mail) => mail.subject)).toEqual([expect.stringMatching(/plan: .+ shared the plan with you \(you can read it\)$/)]);
    expect(mailTo(newOwner.email, from).map((mail) => mail.subject)).toEqual([expect.stringMatching(/plan: .+ made you the owner of the plan$/)]);
    expect(mailTo(gone.email, from)).toHaveLength(0);
    const [skipped] = await db().select().from(mailOutbox).where(eq(mailOutbox.userId, gone.id));
    expect(skipped?.state).toBe('skipped');
  });

  it('escapes every name in the HTML part and keeps the plain-text part as written', () => {
    const hostile = '<script>alert("x")</script> & Co\'s';
    const letter = letterOf('https://plans.example.org', {
      type: 'comment',
      plan: { formId: 'a'.repeat(24), schoolName: hostile, schoolYear: '2026-2027' },
      actorName: '<b>Eve</b>',
      where: { short: '2c', full: '2c. <img src=x onerror=alert(1)>' },
      link: '/plans/x?a=1&b="2"',
    });
    const rendered = renderLetter(letter, 'comments', { appUrl: 'https://plans.example.org', unsubscribeUrl: 'https://plans.example.org/unsubscribe/t' });
    expect(rendered.html).not.toMatch(/<script|<b>Eve|<img/);
    expect(rendered.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co&#x27;s');
    expect(rendered.html).toContain('href="https://plans.example.org/plans/x?a&#x3D;1&amp;b&#x3D;&quot;2&quot;"');
    expect(rendered.text).toContain('<b>Eve</b> commented on 2c. <img src=x onerror=alert(1)>.');
    expect(rendered.subject).toBe(`${hostile} 2026-2027 plan: <b>Eve</b> commented on 2c`);
  });
});

describe('preferences', () => {
  it('gathers a person’s digest kinds into one e-mail a day, grouped by plan, after the daily hour', async () => {
    const from = sink.received.length;
    expect((await principal.put('/api/profile/mail', { decisions: 'digest' })).status).toBe(200);
    const first = await submittedPlan('Digest One');
    const second = await submittedPlan('Digest Two');
    for (const formId of [first, second]) {
      expect((await admin.put(planPath(formId), { action: 'review', status: 'under_review' })).status).toBe(200);
      expect((await admin.put(planPath(formId), { action: 'review', status: 'approved' })).status).toBe(200);
    }
    // Before the next daily hour (or after today's, for events that came after it): nothing yet.
    await turn();
    expect(mailTo(PRINCIPAL_HARBOR, from), 'nothing before the daily hour').toHaveLength(0);

    // The next daily hour (23:00 UTC) after these events, whatever time it is now.
    const dailyAt = new Date(now());
    dailyAt.setUTCHours(23, 0, 30, 0);
    if (dailyAt <= now()) dailyAt.setUTCDate(dailyAt.getUTCDate() + 1);
    offsetMs += dailyAt.getTime() - now().getTime();
    await turn();
    await turn();
    const digests = mailTo(PRINCIPAL_HARBOR, from);
    expect(digests, 'one digest, even over two turns').toHaveLength(1);
    const digest = digests[0]!;
    expect(digest.subject).toBe('Daily summary, 2 plans: 2 updates');
    for (const formId of [first, second]) expect(digest.text).toContain(`/plans/${formId}`);
    expect(digest.text.match(/approved the plan/g)).toHaveLength(2);
    // A digest of one kind unsubscribes from that kind.
    expect(header(digest, 'list-unsubscribe')).toContain(`${harborPrincipal.id}.decisions.`);
    expect((await principal.put('/api/profile/mail', { decisions: 'immediate' })).status).toBe(200);
  });

  it('shows and changes one’s own choices, each kind on its own, and refuses unknown kinds or deliveries', async () => {
    const before = await principal.get('/api/profile/mail');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      email: PRINCIPAL_HARBOR,
      preferences: {
        comments: 'immediate',
        mentions: 'immediate',
        decisions: 'immediate',
        submissions: 'immediate',
        sharing: 'immediate',
        reminders: 'immediate',
      },
    });
    const changed = await principal.put('/api/profile/mail', { reminders: 'off', mentions: 'digest' });
    expect(changed.body.preferences).toMatchObject({ reminders: 'off', mentions: 'digest', comments: 'immediate' });
    const kept = await principal.put('/api/profile/mail', { reminders: 'immediate' });
    expect(kept.body.preferences).toMatchObject({ reminders: 'immediate', mentions: 'digest' });
    for (const bad of [{ reminders: 'weekly' }, { everything: 'off' }, []]) {
      const refused = await principal.put('/api/profile/mail', bad);
      expect(refused.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await principal.get('/api/profile/mail')).body.preferences).toMatchObject({ reminders: 'immediate', mentions: 'digest' });
    expect((await new HttpClient(server.url).get('/api/profile/mail')).status).toBe(401);
    await principal.put('/api/profile/mail', { mentions: 'immediate' });
  });

  it('unsubscribes in one click from the List-Unsubscribe address, as a mail client posts it, with no session', async () => {
    const from = sink.received.length;
    await submittedPlan('Unsubscribe');
    await turn();
    const [mail] = mailTo(SUPERADMIN, from);
    const address = header(mail!, 'list-unsubscribe').slice(1, -1);
    const response = await fetch(address, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://mail.example.com' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, kind: 'submissions', turnedOff: ['submissions'], email: SUPERADMIN });
    const [stored] = await db().select().from(users).where(eq(users.id, superAdmin.id));
    expect(stored!.mailPreferences).toMatchObject({ submissions: 'off' });

    // The next submission is not mailed to them.
    const next = sink.received.length;
    await submittedPlan('Unsubscribed');
    await turn();
    expect(mailTo(SUPERADMIN, next)).toHaveLength(0);

    // A forged or altered token changes nothing.
    const [, token] = address.split('/api/mail/unsubscribe/');
    const [id, , signature] = token!.split('.');
    for (const bad of [`${id}.comments.${signature}`, `${'b'.repeat(24)}.submissions.${signature}`, 'nonsense', `${token}x`]) {
      const refused = await new HttpClient(server.url).post(`/api/mail/unsubscribe/${bad}`);
      expect(refused.status, bad).toBe(404);
    }
    await db().update(users).set({ mailPreferences: {} }).where(eq(users.id, superAdmin.id));
  });
});

describe('delivery', () => {
  /** Puts `count` items for `user` in the outbox directly and composes them into queued messages. */
  async function queueMessages(count: number, user: UserRow, tag: string): Promise<string[]> {
    await db().transaction((tx) =>
      enqueueMail(
        tx,
        Array.from({ length: count }, (_, index) => ({
          userId: user.id,
          key: `test:${tag}:${index}`,
          data: {
            type: 'plan_approved' as const,
            plan: { formId: 'c'.repeat(24), schoolName: `Queue ${tag} ${index}`, schoolYear: '2026-2027' },
            actorName: 'Tester',
            link: '/plans',
          },
        })),
      ),
    );
    const sender = new MailSender(
      server.services.storage,
      { ...server.services.config, mail: { ...server.services.config.mail, smtpUrl: undefined } },
      server.services.logger,
      {
        now,
        poll: false,
      },
    );
    await sender.runOnce();
    const rows = await db()
      .select({ id: mailMessages.id })
      .from(mailMessages)
      .innerJoin(mailOutbox, eq(mailOutbox.messageId, mailMessages.id))
      .where(
        and(
          eq(mailOutbox.userId, user.id),
          inArray(
            mailOutbox.key,
            Array.from({ length: count }, (_, index) => `test:${tag}:${index}`),
          ),
        ),
      );
    return rows.map((row) => row.id);
  }

  const statusOf = async (ids: string[]) =>
    (await db().select({ status: mailMessages.status }).from(mailMessages).where(inArray(mailMessages.id, ids))).map((row) => row.status);

  it('retries after the SMTP server refuses, once it is back, with the refusal on the System page meanwhile', async () => {
    const person = await insertUser(server, { level: 1, schoolName: 'Elsewhere' });
    const ids = await queueMessages(2, person, 'refused');
    sink.refusing = true;
    const refused = await turn();
    expect(refused.refused).toBeGreaterThanOrEqual(2);
    expect(await statusOf(ids)).toEqual(['queued', 'queued']);
    const health = await admin.get('/api/admin/health');
    expect(health.body.mail.recentFailures.map((failure: { _id: string }) => failure._id)).toEqual(expect.arrayContaining(ids));
    expect(health.body.mail.recentFailures.find((failure: { _id: string }) => failure._id === ids[0]).lastError).toMatch(/421/);

    sink.refusing = false;
    await turn();
    expect(mailTo(person.email), 'not before the back-off').toHaveLength(0);
    offsetMs += 61_000;
    await turn();
    expect(mailTo(person.email)).toHaveLength(2);
    expect(await statusOf(ids)).toEqual(['sent', 'sent']);
  });

  it('never sends twice a message whose sender stopped between sending it and recording it', async () => {
    const person = await insertUser(server, { level: 1, schoolName: 'Elsewhere' });
    const [id] = await queueMessages(1, person, 'crash');
    // The stopped process: it claimed and sent the message, and never recorded the answer.
    const claimed = await claimDueMessages(db(), 'process-that-stopped', now(), 1000, 1);
    expect(claimed.map((row) => row.id)).toEqual([id]);
    const settings = smtpSettingsOf(sink.url, server.services.config.mail.from, server.services.config.appUrl);
    await sendOverSmtp(settings, [{ ...claimed[0]!, to: claimed[0]!.toAddress }], async () => {});
    expect(mailTo(person.email)).toHaveLength(1);

    // The restarted process, before and after the stopped one's lease ends.
    await turn();
    expect(await statusOf([id!])).toEqual(['sending']);
    offsetMs += 6 * 60_000;
    const after = await turn();
    expect(after.inDoubt).toBe(1);
    await turn();
    expect(mailTo(person.email), 'still one copy').toHaveLength(1);
    expect(await statusOf([id!])).toEqual(['in_doubt']);
    const health = (await admin.get('/api/admin/health')).body.mail;
    expect(health.inDoubt).toBeGreaterThanOrEqual(1);
    expect(health.status).toBe('degraded');

    // A Super Admin may send it again (knowing it may arrive twice); others may not.
    expect((await principal.post(`/api/admin/mail/${id}/resend`)).status).toBe(403);
    expect((await admin.post(`/api/admin/mail/${id}/resend`)).status).toBe(200);
    await turn();
    expect(mailTo(person.email)).toHaveLength(2);
    expect((await admin.post(`/api/admin/mail/${id}/resend`)).status).toBe(400);
  });

  it('two senders on one queue send each message once', async () => {
    const person = await insertUser(server, { level: 1, schoolName: 'Elsewhere' });
    const ids = await queueMessages(30, person, 'pair');
    const second = new MailSender(server.services.storage, server.services.config, server.services.logger, { now, poll: false });
    await Promise.all([turn(), second.runOnce(), turn(), second.runOnce()]);
    await Promise.all([turn(), second.runOnce()]);
    const received = mailTo(person.email);
    expect(received).toHaveLength(30);
    expect(new Set(received.map((mail) => mail.messageId)).size).toBe(30);
    expect(new Set(await statusOf(ids))).toEqual(new Set(['sent']));
  });

  it('hands the SMTP server no more messages a minute than the bound, counting every sender', async () => {
    const person = await insertUser(server, { level: 1, schoolName: 'Elsewhere' });
    const ids = await queueMessages(12, person, 'rate');
    offsetMs += 61_000;
    const config = { ...server.services.config, mail: { ...server.services.config.mail, ratePerMinute: 5 } };
    const [first, second] = [0, 1].map(() => new MailSender(server.services.storage, config, server.services.logger, { now, poll: false }));
    await Promise.all([first!.runOnce(), second!.runOnce()]);
    expect(mailTo(person.email)).toHaveLength(5);
    await first!.runOnce();
    expect(mailTo(person.email)).toHaveLength(5);
    offsetMs += 61_000;
    await second!.runOnce();
    expect(mailTo(person.email)).toHaveLength(10);
    offsetMs += 61_000;
    await first!.runOnce();
    expect(new Set(await statusOf(ids))).toEqual(new Set(['sent']));
  });
});

describe('without SMTP_URL outside production: the development mailbox', () => {
  let local: TestServer;
  beforeAll(async () => {
    local = await startTestServer({}, { mail: { poll: false } });
  });
  afterAll(async () => {
    await local?.stop();
  });

  it('keeps every message and shows it to signed-in people, newest first, with recipients, subject, text and HTML', async () => {
    const [localAdmin, localPrincipal] = await signInAll(local.url, [SUPERADMIN, PRINCIPAL_HARBOR]);
    const formId = await createPlan(localAdmin, 'Mailbox');
    expect((await localPrincipal.put(planPath(formId), { action: 'submit' })).status).toBe(200);
    expect((await localAdmin.put(planPath(formId), { action: 'review', status: 'under_review' })).status).toBe(200);
    expect((await localAdmin.put(planPath(formId), { action: 'review', status: 'approved' })).status).toBe(200);
    await local.mail.runOnce();
    const mailbox = await localPrincipal.get('/api/dev/mailbox');
    expect(mailbox.status).toBe(200);
    const subjects = mailbox.body.messages.map((message: { to: string; subject: string }) => `${message.to}: ${message.subject}`);
    expect(subjects.slice(0, 2)).toEqual([
      expect.stringMatching(new RegExp(`^${PRINCIPAL_HARBOR}: .+ plan: .+ approved the plan$`)),
      expect.stringMatching(new RegExp(`^${SUPERADMIN}: .+ plan: .+ submitted the plan for review$`)),
    ]);
    const [newest] = mailbox.body.messages;
    expect(newest).toMatchObject({ status: 'kept', text: expect.stringContaining(`/plans/${formId}`), html: expect.stringContaining('<!doctype html>') });
    expect((await new HttpClient(local.url).get('/api/dev/mailbox')).status).toBe(401);
    expect((await admin.get('/api/dev/mailbox')).status, 'not where SMTP is configured').toBe(404);
  });
});
