/**
 * The review conversation in real Chromium: a reviewer comments at a question, the principal sees
 * it there the moment it is sent and replies, the reviewer resolves it, and both find it under
 * Resolved; the header's bell counts and lists what happened, in words that link to the question;
 * the profile page stores e-mail preferences; the development mailbox shows the e-mail the comment
 * caused. axe-core checks each page. Everything is found by role and accessible name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { MailSettings } from '@csp/shared/mail';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { formIdOf, planPath } from '../server/src/testing/plans.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../server/src/testing/demoNames.ts';
import { stepOf } from '../server/src/testing/bundledBank.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';

const { step, stepNumber } = stepOf('childAbuseIntervention');
const liaison = step.questions.find((question) => question.id === 'cai_liaison')!;
const COMMENT = 'Who is the designated liaison’s backup when the liaison is away?';
const REPLY = 'Our counselor, Ms. Ortiz, is the backup; we will add her as a second row.';

let server: TestServer;
let browser: Browser;
let principalApi: HttpClient;
let reviewerApi: HttpClient;
let formId: string;
let reviewer: Person;
let principal: Person;
let reviewerName: string;

/** The question's group in the step editor: its threads are shown in it. */
const questionGroup = (page: Page) => page.getByRole('group', { name: `${liaison.number}. ${liaison.title}` });
const thread = (page: Page) => questionGroup(page).getByRole('article', { name: `Comment by ${reviewerName} on ${liaison.number}` });
const unreadOf = async () => ((await principalApi.get('/api/notifications')).body as { unread: number }).unread;
const bellName = (unread: number) => (unread ? `Notifications, ${unread} unread` : 'Notifications');

beforeAll(async () => {
  server = await startTestServer({}, { mail: { poll: false } });
  browser = await launchBrowser();
  [principalApi, reviewerApi] = await signInAll(server.url, [PRINCIPAL_HARBOR, SUPERADMIN] as const);
  formId = await formIdOf(principalApi, HARBOR);
  reviewerName = (await reviewerApi.get('/api/auth/session')).body.user.name;
  const stepUrl = `/plans/${formId}/step/${stepNumber}`;
  reviewer = await signInAs(browser, server.url, SUPERADMIN, stepUrl);
  principal = await signInAs(browser, server.url, PRINCIPAL_HARBOR, stepUrl);
});
afterAll(async () => {
  for (const person of [reviewer, principal]) await person?.context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('a review thread at its question', () => {
  it('the reviewer comments at the question; the principal sees it there at once, with the count on the step and on the bell', async () => {
    await questionGroup(principal.page).waitFor();
    const before = await unreadOf();
    await principal.page.getByRole('button', { name: bellName(before), exact: true }).waitFor();

    await questionGroup(reviewer.page)
      .getByRole('button', { name: `Comment on ${liaison.number}` })
      .click();
    await questionGroup(reviewer.page)
      .getByRole('textbox', { name: `Comment on ${liaison.number}` })
      .fill(COMMENT);
    await questionGroup(reviewer.page).getByRole('button', { name: 'Send comment' }).click();

    await thread(principal.page).getByText(COMMENT).waitFor();
    await principal.page.getByRole('button', { name: bellName(before + 1), exact: true }).waitFor();
    await principal.page
      .getByRole('navigation', { name: 'Plan steps' })
      .getByRole('listitem')
      .filter({ has: principal.page.getByRole('link', { name: step.title }) })
      .getByText('1 open comment')
      .waitFor();
  });

  it('the principal’s step editor with the thread passes axe-core', async () => {
    await expectAccessible(principal.page, 'the step editor with a thread at a question');
  });

  it('the reviewer’s step editor with the thread passes axe-core', async () => {
    await expectAccessible(reviewer.page, 'the reviewer’s step editor with a thread');
  });

  it('the principal replies in the thread and the reviewer sees the reply live', async () => {
    await thread(principal.page).getByRole('button', { name: 'Reply', exact: true }).click();
    await thread(principal.page).getByRole('textbox', { name: 'Reply' }).fill(REPLY);
    await thread(principal.page).getByRole('button', { name: 'Send reply' }).click();
    await thread(reviewer.page).getByText(REPLY).waitFor();
    await thread(principal.page).getByRole('button', { name: 'Reply', exact: true }).waitFor();
    const [stored] = (await principalApi.get(planPath(formId, '/comments?status=open'))).body.threads;
    expect(stored).toMatchObject({ questionId: liaison.id, comment: COMMENT, replies: [expect.objectContaining({ body: REPLY })] });
  });

  it('the reviewer resolves it; both find it, still readable, under Resolved at the question', async () => {
    await thread(reviewer.page).getByRole('button', { name: 'Resolve' }).click();
    for (const { page } of [reviewer, principal]) {
      const resolved = questionGroup(page).getByRole('button', { name: 'Resolved (1)' });
      await resolved.waitFor();
      await thread(page).waitFor({ state: 'hidden' });
      await resolved.click();
      await expect(resolved.getAttribute('aria-expanded')).resolves.toBe('true');
      await thread(page).getByText(`Resolved by ${reviewerName}`).waitFor();
      await thread(page).getByText(REPLY).waitFor();
    }
    await principal.page
      .getByRole('navigation', { name: 'Plan steps' })
      .getByText(/open comments?$/)
      .waitFor({ state: 'detached' });
  });

  it('a question with its Resolved list open passes axe-core', async () => {
    await expectAccessible(principal.page, 'a question with its Resolved list open');
  });

  it('the school reopens a resolved thread; the reviewer resolves it again', async () => {
    // The school may reopen it: the same thread comes back to the open list for both.
    await thread(principal.page).getByRole('button', { name: 'Reopen' }).click();
    await thread(reviewer.page).getByRole('button', { name: 'Resolve' }).waitFor();
    await thread(reviewer.page).getByRole('button', { name: 'Resolve' }).click();
    await questionGroup(principal.page).getByRole('button', { name: 'Resolved (1)' }).waitFor();
    expect(principal.errors).toEqual([]);
    expect(reviewer.errors).toEqual([]);
  });
});

describe('the bell', () => {
  it('lists what happened in people’s words, linking to the question, and stores that it was read', async () => {
    const { page } = principal;
    const unread = await unreadOf();
    expect(unread).toBeGreaterThan(0);
    await page.getByRole('button', { name: bellName(unread), exact: true }).click();
    const panel = page.getByRole('dialog', { name: /Notifications/ });
    const ping = panel.getByRole('listitem').filter({ hasText: `${reviewerName} commented on ${liaison.number}. Who is the designated liaison` });
    await ping.waitFor();
    await expectAccessible(page, 'the notifications panel');
    await ping.getByRole('button', { name: /^Mark read/ }).click();
    await page.getByRole('button', { name: bellName(unread - 1), exact: true }).waitFor();
    await waitFor('the read state stored', async () => (await unreadOf()) === unread - 1);

    // Its link opens the question's step and brings the thread into view.
    await page.goto(`${server.url}/plans/${formId}`);
    await page.getByRole('button', { name: bellName(unread - 1), exact: true }).click();
    await panel.getByRole('link', { name: new RegExp(`^${reviewerName} commented on ${liaison.number}\\.`) }).click();
    await page.waitForURL((url) => url.pathname === `/plans/${formId}/step/${stepNumber}` && url.searchParams.has('thread'));
    await waitFor('the linked thread focused', () =>
      page.evaluate(() => document.activeElement?.getAttribute('aria-label')?.startsWith('Comment by') ?? false),
    );

    // A new comment raises the count while the page is open.
    const now = await unreadOf();
    expect((await reviewerApi.post(planPath(formId, '/comments'), { comment: 'Please also list the backup’s phone.', stepKey: step.key })).status).toBe(200);
    await page.getByRole('button', { name: bellName(now + 1), exact: true }).waitFor();
    expect(principal.errors).toEqual([]);
  });
});

describe('e-mail', () => {
  it('the development mailbox shows the e-mail the comment caused, its recipients, subject, text and HTML', async () => {
    await server.mail.runOnce();
    const { page } = principal;
    await page.goto(`${server.url}/dev/mailbox`);
    await page.getByRole('heading', { level: 1, name: 'Development mailbox' }).waitFor();
    const message = page
      .getByRole('article')
      .filter({ has: page.getByRole('heading', { name: new RegExp(`plan: ${reviewerName} commented on ${liaison.number}$`) }) })
      .filter({ hasText: PRINCIPAL_HARBOR })
      .first();
    await message.waitFor();
    await message.getByText(`/plans/${formId}/step/${stepNumber}?thread=`).waitFor();
    expect(await message.textContent()).not.toContain(COMMENT);
    await message.getByRole('button', { name: 'HTML version' }).click();
    const frame = message.frameLocator('iframe');
    await frame.getByRole('heading', { level: 1 }).waitFor();
    await expectAccessible(page, 'the development mailbox');
  });

  it('the profile page stores each kind’s delivery', async () => {
    const { page } = principal;
    await page.getByRole('link', { name: (await principalApi.get('/api/auth/session')).body.user.name }).click();
    await page.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
    const comments = page.getByRole('group', { name: 'Review comments and replies' });
    await comments.getByRole('radio', { name: 'Daily digest' }).check();
    await page.getByRole('group', { name: 'Deadline reminders' }).getByRole('radio', { name: 'Off' }).check();
    await page.getByText('You have changes that are not saved yet.').waitFor();
    await page.getByRole('button', { name: 'Save e-mail settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Your e-mail settings are saved.' }).first().waitFor();
    const stored = (await principalApi.get('/api/profile/mail')).body as MailSettings;
    expect(stored.preferences).toMatchObject({ comments: 'digest', reminders: 'off', mentions: 'immediate' });
    await expectAccessible(page, 'the profile page');
    await page.reload();
    await expect(
      page.getByRole('group', { name: 'Review comments and replies' }).getByRole('radio', { name: 'Daily digest' }).isChecked({ timeout: 10_000 }),
    ).resolves.toBe(true);
    expect(principal.errors).toEqual([]);
  });
});
