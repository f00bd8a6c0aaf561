/**
 * The README's history and versions screenshots, at 1280 and 360 px: an answer's History panel
 * (the assistant principal's first text, the principal's rewrite, a restore), the plan page's
 * Versions after a submission, a return and a resubmission, and the reviewer's "Changes since the
 * last submission". Run by screenshots.ts on its demo server, or alone:
 * `node tools/historyScreenshots.ts` in tests/ (a fresh demo server).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { HistoryResponse } from '@csp/shared/api/history';
import { startTestServer } from '../../server/src/testing/testServer.ts';
import { signInAll } from '../../server/src/testing/signIn.ts';
import { formIdOf, planPath, saveBody, stepPath } from '../../server/src/testing/plans.ts';
import { HARBOR } from '../../server/src/testing/demoNames.ts';
import { stepOf } from '../../server/src/testing/bundledBank.ts';
import { waitFor } from '../../server/src/testing/wait.ts';
import { launchBrowser, signInAs } from '../support/browser.ts';

const DESK = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 780 };

export async function takeHistoryScreenshots(baseUrl: string, browser: Browser, out: string): Promise<void> {
  const [principalApi, apApi, adminApi] = await signInAll(baseUrl, [
    'principal.harbor@example.org',
    'ap.harbor@example.org',
    'superadmin@example.org',
  ] as const);
  const formId = await formIdOf(principalApi, HARBOR);
  const { step, stepNumber } = stepOf('attendancePlan');
  const reasons = step.questions.find((question) => question.type === 'textarea' && !question.visibleWhen)!;
  const historyOf = async () =>
    ((await principalApi.get(planPath(formId, `/history?stepKey=${step.key}&questionId=${reasons.id}`))).body as HistoryResponse).revisions;

  // The assistant principal's first text, through the route (a lock the principal's earlier typing
  // took would refuse it); then the principal rewrites it live.
  await principalApi.post(stepPath(formId, stepNumber, '/unlock'), {});
  await apApi.put(stepPath(formId, stepNumber), saveBody({ [reasons.id]: 'Families told us mornings are hard. Buses arrive late in winter.' }));
  await apApi.post(stepPath(formId, stepNumber, '/unlock'), {});
  const stepUrl = `/plans/${formId}/step/${stepNumber}`;
  const principal = await signInAs(browser, baseUrl, 'principal.harbor@example.org', stepUrl, DESK);
  await saved(principal.page);
  const rewrite = 'Families told us mornings are hard, most of all in winter, when the 7:10 bus arrives late and full.';
  await principal.page.getByRole('textbox', { name: reasons.title }).fill(rewrite);
  await waitFor('the rewrite in the history', async () => (await historyOf())[0]?.after === rewrite);
  // A restore of the first text, and the principal's later touch on it: every kind of entry.
  const first = (await historyOf()).at(-1)!;
  await principalApi.post(planPath(formId, `/history/${first._id}/restore`), { to: 'after' });
  await waitFor('the restore in the history', async () => (await historyOf())[0]?.kind === 'restore');

  const openHistory = async (page: Page) => {
    await page.getByRole('button', { name: `History of ${reasons.number}` }).click();
    await page.getByRole('dialog').getByText('Restored').waitFor();
    await page.waitForTimeout(300);
  };
  await openHistory(principal.page);
  await principal.page.screenshot({ path: path.join(out, 'history-panel.png') });
  const phone = await signInAs(browser, baseUrl, 'principal.harbor@example.org', stepUrl, PHONE);
  await saved(phone.page);
  await openHistory(phone.page);
  await phone.page.screenshot({ path: path.join(out, 'history-panel-phone.png') });
  await principal.context.close();
  await phone.context.close();

  // Submitted, returned with a comment, changed, submitted again. The changes are in a step nobody
  // has open, whose record is written straight (an open document's write-through comes after the answer).
  const housing = stepOf('temporaryHousing');
  const training = housing.step.questions.find((question) => question.id === 'sth_staffTraining')!;
  const posters = housing.step.questions.find((question) => question.id === 'sth_postersDisplayed')!;
  await apApi.put(
    stepPath(formId, housing.stepNumber),
    saveBody({ [training.id]: 'A staff meeting in September covers the rights of students in temporary housing.' }),
  );
  await principalApi.put(planPath(formId), { action: 'submit' });
  await adminApi.put(planPath(formId), { action: 'review', status: 'under_review' });
  await adminApi.put(planPath(formId), { action: 'review', status: 'rejected', comment: 'Please say how new staff learn about temporary housing.' });
  await apApi.put(
    stepPath(formId, housing.stepNumber),
    saveBody({
      [training.id]: 'A staff meeting in September and a short video for staff who join later cover the rights of students in temporary housing.',
      [posters.id]: true,
    }),
  );
  await principalApi.put(planPath(formId), { action: 'submit' });

  for (const [viewport, suffix] of [
    [DESK, ''],
    [PHONE, '-phone'],
  ] as const) {
    const admin = await signInAs(browser, baseUrl, 'superadmin@example.org', `/plans/${formId}`, viewport);
    const { page } = admin;
    const versions = page.getByRole('region', { name: 'Versions' });
    await versions.getByRole('listitem').nth(3).waitFor();
    await page.waitForTimeout(300);
    if (suffix) await versions.screenshot({ path: path.join(out, `plan-versions${suffix}.png`) });
    else await page.screenshot({ path: path.join(out, `plan-versions${suffix}.png`), fullPage: true });
    await page.getByRole('link', { name: 'Changes since the last submission' }).click();
    await page.getByText(/\d+ answers? changed/).waitFor();
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(out, `version-compare${suffix}.png`), fullPage: true });
    await admin.context.close();
  }
}

async function saved(page: Page): Promise<void> {
  await page
    .getByRole('status')
    .filter({ hasText: /All changes saved|Saved at/ })
    .first()
    .waitFor();
}

if (import.meta.main) {
  const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');
  const server = await startTestServer();
  const browser = await launchBrowser();
  try {
    await takeHistoryScreenshots(server.url, browser, out);
    console.log(`history screenshots written to ${path.relative(process.cwd(), out)}`);
  } finally {
    await browser.close();
    await server.stop();
  }
}
