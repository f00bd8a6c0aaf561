import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator } from 'playwright-core';
import type { AnswerRevision, HistoryResponse, VersionList } from '@csp/shared/api/history';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { formIdOf, planPath, saveBody, stepPath } from '../server/src/testing/plans.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../server/src/testing/demoNames.ts';
import { stepOf } from '../server/src/testing/bundledBank.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';

/**
 * History and versions as people use them in real Chromium: an answer's history (who, a word
 * diff) and Restore bringing an earlier text back into the open editor; the plan's versions after
 * a submission and a return, one version read-only, compared with the plan now and with each
 * other; axe-core on each panel and page, and the compare page at phone width.
 */
const AP = 'ap.harbor@example.org';
const { step: ATTENDANCE, stepNumber: ATTENDANCE_NUMBER } = stepOf('attendancePlan');
const REASONS = ATTENDANCE.questions.find((question) => question.type === 'textarea' && !question.visibleWhen)!;
// Changed after the return in a step nobody has open: its record is written straight.
const { step: HOUSING, stepNumber: HOUSING_NUMBER } = stepOf('temporaryHousing');
const TRAINING_DATE = HOUSING.questions.find((question) => question.id === 'sth_liaisonTrainingDate')!;
const EARLIER = 'Families told us mornings are hard.';
const TYPED = ' Buses arrive late in winter.';

let server: TestServer;
let browser: Browser;
let principalApi: HttpClient;
let apApi: HttpClient;
let adminApi: HttpClient;
let formId: string;
const people: Person[] = [];

async function person(email: string, callbackUrl: string, viewport?: { width: number; height: number }): Promise<Person> {
  const signedIn = await signInAs(browser, server.url, email, callbackUrl, viewport);
  people.push(signedIn);
  return signedIn;
}

/** What a screen reader reads of an element (its visually hidden words included), spaces collapsed. */
const wordsOf = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** Revisions are written once the server has stored the step: wait until the answer's history shows `test`. */
const historyWhere = (what: string, test: (revisions: AnswerRevision[]) => boolean) =>
  waitFor(what, async () => {
    const { revisions } = (await principalApi.get(planPath(formId, `/history?stepKey=${ATTENDANCE.key}&questionId=${REASONS.id}`))).body as HistoryResponse;
    return test(revisions) ? revisions : undefined;
  });

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  [principalApi, apApi, adminApi] = await signInAll(server.url, [PRINCIPAL_HARBOR, AP, SUPERADMIN] as const);
  formId = await formIdOf(principalApi, HARBOR);
});

afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('history and versions in a real browser', () => {
  it('an answer’s History names who changed it and shows the words; Restore brings the earlier text back into the editor', async () => {
    // The assistant principal wrote the first text (a save through the route), then let the step go.
    expect((await apApi.put(stepPath(formId, ATTENDANCE_NUMBER), saveBody({ [REASONS.id]: EARLIER }))).status).toBe(200);
    expect((await apApi.post(stepPath(formId, ATTENDANCE_NUMBER, '/unlock'), {})).status).toBe(200);

    const principal = await person(PRINCIPAL_HARBOR, `/plans/${formId}/step/${ATTENDANCE_NUMBER}`);
    const { page } = principal;
    const field = page.getByRole('textbox', { name: REASONS.title });
    await page
      .getByRole('status')
      .filter({ hasText: /All changes saved/ })
      .first()
      .waitFor();
    await expect(field.inputValue()).resolves.toBe(EARLIER);
    await field.click();
    await page.keyboard.press('End');
    await page.keyboard.type(TYPED);
    await historyWhere('the principal’s edit in the history', ([latest]) => latest?.after === EARLIER + TYPED);

    const button = page.getByRole('button', { name: `History of ${REASONS.number}` });
    await button.click();
    const dialog = page.getByRole('dialog', { name: `History of ${REASONS.number}: ${REASONS.title}` });
    const entries = dialog.getByRole('list', { name: 'Changes, newest first' }).getByRole('listitem');
    // The panel loads its list after it opens.
    await entries.nth(1).waitFor();
    await expect(entries.count()).resolves.toBe(2);
    const newest = entries.first();
    await newest.getByText('Elena Rodriguez', { exact: true }).waitFor();
    // The added words are marked (underlined <ins>, named for screen readers), not only coloured.
    await expect(wordsOf(newest.locator('ins'))).resolves.toBe(`added: ${TYPED.trim()}`);
    await newest.getByText('This is the answer now.').waitFor();
    await expect(newest.getByRole('button', { name: 'Restore' }).count()).resolves.toBe(0);
    const oldest = entries.last();
    await oldest.getByText('Marcus Bell', { exact: true }).waitFor();
    await expectAccessible(page, 'an answer’s history');

    await oldest.getByRole('button', { name: 'Restore', exact: true }).click();
    await page.getByRole('status').getByText(`Answer ${REASONS.number} is back as it was at`).waitFor();
    // The restore is applied through the live document: the open field shows it by itself.
    await waitFor('the field shows the earlier text', async () => (await field.inputValue()) === EARLIER);
    // The panel reads the history again: the restore is a change of its own, newest.
    await entries.first().getByText('Restored').waitFor();
    await expect(entries.count()).resolves.toBe(3);

    // Closing the panel gives focus back to the button that opened it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect(button.evaluate((element) => element === document.activeElement)).resolves.toBe(true);

    // The step's history names each entry's question.
    await page.getByRole('button', { name: 'Step history' }).click();
    const stepDialog = page.getByRole('dialog', { name: `History of step ${ATTENDANCE_NUMBER}: ${ATTENDANCE.title}` });
    await stepDialog
      .getByRole('heading', { level: 3, name: `${REASONS.number}. ${REASONS.title}` })
      .first()
      .waitFor();
    await expectAccessible(page, 'a step’s history');
    await page.keyboard.press('Escape');
    expect(principal.errors).toEqual([]);
  });

  it('lists the versions after a submission and a return; a version opens read-only and compares with the plan now and with another', async () => {
    // Submitted, returned with a comment, changed and submitted again, all through the API.
    expect((await principalApi.put(planPath(formId), { action: 'submit' })).status).toBe(200);
    expect((await adminApi.put(planPath(formId), { action: 'review', status: 'under_review' })).status).toBe(200);
    const returned = await adminApi.put(planPath(formId), { action: 'review', status: 'rejected', comment: 'Please give the liaison’s training date.' });
    expect(returned.status).toBe(200);
    expect((await principalApi.put(stepPath(formId, HOUSING_NUMBER), saveBody({ [TRAINING_DATE.id]: 'October 15' }))).status).toBe(200);
    expect((await principalApi.put(planPath(formId), { action: 'submit' })).status).toBe(200);
    const { versions } = (await principalApi.get(planPath(formId, '/versions'))).body as VersionList;
    expect(versions.map((version) => version.kind)).toEqual(['submitted', 'returned', 'under_review', 'submitted']);

    const admin = await person(SUPERADMIN, `/plans/${formId}`);
    const { page } = admin;
    const section = page.getByRole('region', { name: 'Versions' });
    const items = section.getByRole('listitem');
    await items.first().getByText('Submitted').waitFor();
    await expect(items.count()).resolves.toBe(4);
    await items.nth(1).getByText('“Please give the liaison’s training date.”').waitFor();
    await expectAccessible(page, 'the plan page with its versions');

    // The reviewer's shortcut: the latest submission beside the return before it.
    await page.getByRole('link', { name: 'Changes since the last submission' }).click();
    await page.getByRole('heading', { level: 1, name: 'Compare versions' }).waitFor();
    await page.getByText('1 answer changed').waitFor();
    const change = page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name: `${TRAINING_DATE.number}. ${TRAINING_DATE.title}` }) });
    await expect(wordsOf(change.locator('ins'))).resolves.toBe('added: October 15');
    await expectAccessible(page, 'the compare page');

    // The first submission, read-only, with its own downloads.
    await page.getByRole('link', { name: 'Back to the plan' }).click();
    await items.last().getByRole('link', { name: 'View' }).click();
    await page.getByRole('heading', { level: 1, name: /submitted version/ }).waitFor();
    const first = versions[3]!._id;
    await expect(page.getByRole('link', { name: 'Download PDF' }).getAttribute('href')).resolves.toBe(`/api/forms/${formId}/export/pdf?version=${first}`);
    await page
      .getByRole('region', { name: `Step ${ATTENDANCE_NUMBER}: ${ATTENDANCE.title}` })
      .getByText(EARLIER, { exact: true })
      .waitFor();
    await expectAccessible(page, 'a version read-only');
    await page.getByRole('link', { name: 'Compare with current' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/versions/compare') && url.searchParams.get('from') === first && !url.searchParams.has('to'));
    // Since the first submission (which held the restored reasons): the training date.
    await page.getByText('1 answer changed').waitFor();

    // Two versions chosen on the plan page.
    await page.getByRole('link', { name: 'Back to the plan' }).click();
    const form = section.getByRole('group', { name: 'Compare two versions' });
    await form.getByLabel('From').selectOption(first);
    await form.getByLabel('To').selectOption(versions[1]!._id);
    await form.getByRole('button', { name: 'Compare' }).click();
    await page.waitForURL((url) => url.searchParams.get('from') === first && url.searchParams.get('to') === versions[1]!._id);
    await page.getByText('No answer changed').waitFor();
    expect(admin.errors).toEqual([]);
  });

  it('on a phone, the compare page fits the screen; while the plan is with the district, History offers no Restore', async () => {
    const principal = await person(PRINCIPAL_HARBOR, `/plans/${formId}`, { width: 360, height: 760 });
    const { page } = principal;
    await page.getByRole('region', { name: 'Versions' }).getByRole('link', { name: 'Compare with current' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Compare versions' }).waitFor();
    await page.getByText(/No answer changed|answers? changed/).waitFor();
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(360);
    await expectAccessible(page, 'the compare page on a phone');

    await page.goto(`${server.url}/plans/${formId}/step/${ATTENDANCE_NUMBER}`);
    await page.getByRole('button', { name: `History of ${REASONS.number}` }).click();
    const dialog = page.getByRole('dialog', { name: /^History of/ });
    await dialog.getByRole('list', { name: 'Changes, newest first' }).waitFor();
    await expect(dialog.getByRole('button', { name: /^Restore/ }).count()).resolves.toBe(0);
    expect(principal.errors).toEqual([]);
  });
});
