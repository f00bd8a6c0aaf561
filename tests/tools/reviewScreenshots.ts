/**
 * The README's review screenshots, at 1280 and 360 px: a thread at question 2a with the
 * principal's reply (and a resolved one under Resolved), the header's notifications open, the
 * profile page's e-mail settings and the development mailbox with the e-mail the comment caused.
 * Run by screenshots.ts on its demo server, or alone: `node tools/reviewScreenshots.ts` in tests/
 * (a fresh demo server).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../../server/src/testing/testServer.ts';
import { signInAll } from '../../server/src/testing/signIn.ts';
import { formIdOf, planPath } from '../../server/src/testing/plans.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../../server/src/testing/demoNames.ts';
import { stepOf } from '../../server/src/testing/bundledBank.ts';
import { launchBrowser, signInAs } from '../support/browser.ts';

const VIEWPORTS = [
  [{ width: 1280, height: 900 }, ''],
  [{ width: 360, height: 780 }, '-phone'],
] as const;

/** `server`: its mail sender is run once, so the development mailbox holds the comment's e-mail. */
export async function takeReviewScreenshots(server: TestServer, browser: Browser, out: string): Promise<void> {
  const [principalApi, reviewerApi] = await signInAll(server.url, [PRINCIPAL_HARBOR, SUPERADMIN] as const);
  const formId = await formIdOf(principalApi, HARBOR);
  const { step, stepNumber } = stepOf('childAbuseIntervention');
  const [liaison, team] = step.questions;
  const comment = async (questionId: string, text: string) =>
    (await reviewerApi.post(planPath(formId, '/comments'), { comment: text, questionId })).body.comment._id as string;

  const settled = await comment(team!.id, 'Please add a counselor or social worker to the team.');
  await principalApi.post(planPath(formId, `/comments/${settled}/replies`), { body: 'Added Mr. Okafor, our social worker.' });
  await reviewerApi.post(planPath(formId, `/comments/${settled}/resolve`));
  const open = await comment(liaison!.id, 'Who is the liaison’s backup when the liaison is away? Please list them as a second row.');
  await principalApi.post(planPath(formId, `/comments/${open}/replies`), { body: 'Ms. Ortiz, our counselor. I will add her row today.' });
  await server.mail.runOnce();

  for (const [viewport, suffix] of VIEWPORTS) {
    const { page, context } = await signInAs(browser, server.url, PRINCIPAL_HARBOR, `/plans/${formId}/step/${stepNumber}?thread=${open}`, viewport);
    const thread = page.getByRole('article', { name: /^Comment by .+ on 2a$/ });
    await thread.waitFor();
    await page.getByRole('group', { name: /^2b\./ }).getByRole('button', { name: 'Resolved (1)' }).waitFor();
    await settle(page);
    // The question with its thread from the top, without the focus ring the link's arrival put on the thread.
    await thread.evaluate((element) => (element as HTMLElement).blur());
    await page.getByRole('group', { name: /^2a\./ }).evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.evaluate(() => scrollBy(0, -16));
    await settle(page);
    await page.screenshot({ path: path.join(out, `review-thread${suffix}.png`) });

    await page.evaluate(() => scrollTo(0, 0));
    await page.getByRole('button', { name: /^Notifications, \d+ unread$/ }).click();
    await page
      .getByRole('dialog', { name: /Notifications/ })
      .getByRole('listitem')
      .first()
      .waitFor();
    await settle(page);
    await page.screenshot({ path: path.join(out, `review-notifications${suffix}.png`) });
    await page.keyboard.press('Escape');

    await page.goto(`${server.url}/profile`);
    await page.getByRole('radio', { name: 'Daily digest' }).first().waitFor();
    await settle(page);
    await page.screenshot({ path: path.join(out, `profile${suffix}.png`), fullPage: true });

    await page.goto(`${server.url}/dev/mailbox`);
    const mail = page.getByRole('article').filter({ hasText: PRINCIPAL_HARBOR }).first();
    await mail.getByRole('button', { name: 'HTML version' }).click();
    await mail.frameLocator('iframe').getByRole('heading', { level: 1 }).waitFor();
    await mail.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await settle(page);
    await page.screenshot({ path: path.join(out, `dev-mailbox${suffix}.png`) });
    await context.close();
  }
}

/** Fonts and the last frame drawn before a picture. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(300);
}

if (import.meta.main) {
  const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');
  const server = await startTestServer({}, { mail: { poll: false } });
  const browser = await launchBrowser();
  try {
    await takeReviewScreenshots(server, browser, out);
    console.log(`review screenshots written to ${path.relative(process.cwd(), out)}`);
  } finally {
    await browser.close();
    await server.stop();
  }
}
