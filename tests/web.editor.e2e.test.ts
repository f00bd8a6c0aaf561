import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, nextSchoolYear, type Question } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';
import { waitFor } from '../server/src/testing/wait.ts';

/**
 * The plan editor as people use it: real Chromium, the real server (either store), everything
 * found by role and accessible name as a screen reader would, answers checked in the store of
 * record through the step-save route's own read.
 */
const HARBOR = 'Harbor View Academy';
const YEAR = currentSchoolYear();
const PRINCIPAL = 'principal.harbor@example.org';
const AP = 'ap.harbor@example.org';
const SUPERADMIN = 'superadmin@example.org';

const stepNumberOf = (key: string) => BUNDLED_BANK.steps.findIndex((step) => step.key === key) + 1;
const stepOf = (key: string) => BUNDLED_BANK.steps.find((step) => step.key === key)!;
const firstOfType = (key: string, type: Question['type']) => stepOf(key).questions.find((question) => question.type === type && !question.visibleWhen)!;

const ATTENDANCE = stepOf('attendancePlan');
const ATTENDANCE_NUMBER = stepNumberOf('attendancePlan');
const CONTENTS = stepOf('tableOfContents');

let server: TestServer;
let browser: Browser;
let principalApi: HttpClient;
let formId: string;
const people: Person[] = [];
/** The Super Admin's browser, once a test has signed one in. */
let admin: Person | undefined;

async function person(email: string, callbackUrl = '/plans'): Promise<Person> {
  const signedIn = await signInAs(browser, server.url, email, callbackUrl);
  people.push(signedIn);
  return signedIn;
}

async function storedStep(stepNumber: number): Promise<{ data: Record<string, unknown>; completed: boolean }> {
  const response = await principalApi.get(`/api/forms/${formId}/step/${stepNumber}`);
  expect(response.status).toBe(200);
  return response.body.stepData;
}

async function openStep(page: Page, stepTitle: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Plan steps' }).getByRole('link', { name: stepTitle, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: stepTitle }).waitFor();
  await page
    .getByRole('status')
    .filter({ hasText: /All changes saved|Saved at/ })
    .first()
    .waitFor();
}

const field = (page: Page, question: Question) => page.getByRole('textbox', { name: question.title });

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  [principalApi] = await signInAll(server.url, [PRINCIPAL] as const);
  const list = await principalApi.get(`/api/forms?schoolYear=${YEAR}`);
  formId = list.body.forms.find((form: { schoolName: string }) => form.schoolName === HARBOR)._id;
});

afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the plan editor in a real browser', () => {
  it('opens a plan from the list and a step by its title; an answer found by its question is stored within seconds', async () => {
    const principal = await person(PRINCIPAL);
    const { page } = principal;
    await expectAccessible(page, '/plans');
    await page.getByRole('link', { name: `${HARBOR} ${YEAR}` }).click();
    await page.getByRole('heading', { level: 1, name: `${HARBOR} plan for ${YEAR}` }).waitFor();
    await expectAccessible(page, 'the plan overview');

    await openStep(page, ATTENDANCE.title);
    await expectAccessible(page, 'the step editor');
    const text = firstOfType('attendancePlan', 'text');
    await field(page, text).fill('Rahim Uddin, Attendance Teacher');
    await page
      .getByRole('status')
      .filter({ hasText: /Saved at/ })
      .first()
      .waitFor();
    await waitFor(
      'the typed answer in the store of record',
      async () => (await storedStep(ATTENDANCE_NUMBER)).data[text.id] === 'Rahim Uddin, Attendance Teacher',
    );
    expect(principal.errors).toEqual([]);
  });

  it('two people typing in one answer at once both end with the same merged text, which is stored', async () => {
    const principal = people[0] ?? (await person(PRINCIPAL));
    const ap = await person(AP, `/plans/${formId}/step/${ATTENDANCE_NUMBER}`);
    await ap.page.getByRole('heading', { level: 1, name: ATTENDANCE.title }).waitFor();
    // Presence: each sees the other on this step.
    await principal.page
      .getByRole('region', { name: 'People in this plan now' })
      .getByText(/Marcus Bell · Step/)
      .waitFor();
    await ap.page
      .getByRole('region', { name: 'People in this plan now' })
      .getByText(/Elena Rodriguez · Step/)
      .waitFor();

    const textarea = firstOfType('attendancePlan', 'textarea');
    const mine = 'Families told us mornings are hard. ';
    const theirs = 'Buses arrive late in winter. ';
    await field(principal.page, textarea).click();
    await field(ap.page, textarea).click();
    await Promise.all([principal.page.keyboard.type(mine, { delay: 25 }), ap.page.keyboard.type(theirs, { delay: 25 })]);

    const sorted = (value: string) => [...value].sort().join('');
    let seen: string[] = [];
    const merged = await waitFor('both editors converge on a text holding both people’s keystrokes', async () => {
      seen = await Promise.all([field(principal.page, textarea).inputValue(), field(ap.page, textarea).inputValue()]);
      return seen[0] === seen[1] && sorted(seen[0]!) === sorted(mine + theirs) ? seen[0] : null;
    }).catch((error: Error) => {
      throw new Error(`${error.message}; the two editors show ${JSON.stringify(seen)}`);
    });
    await waitFor('the merged text in the store of record', async () => (await storedStep(ATTENDANCE_NUMBER)).data[textarea.id] === merged);
    expect([...principal.errors, ...ap.errors]).toEqual([]);
  });

  it('a table row added in one editor appears in the other, and is stored', async () => {
    const [principal, ap] = [people[0]!, people[1]!];
    const table = firstOfType('attendancePlan', 'table');
    await principal.page.getByRole('button', { name: `Add row to question ${table.number}` }).click();
    const firstColumn = table.columns!.find((column) => column.type === 'text')!.header;
    const cell = (page: Page) => page.getByRole('table', { name: table.title }).getByRole('textbox', { name: `${firstColumn}, row 1` });
    await cell(principal.page).fill('Attendance teacher');
    await waitFor('the row reaches the other editor', async () => (await cell(ap.page).inputValue()) === 'Attendance teacher');
    await waitFor('the row in the store of record', async () => {
      const stored = (await storedStep(ATTENDANCE_NUMBER)).data[table.id] as { rows: string[][] } | undefined;
      return stored?.rows[0]?.[table.columns!.findIndex((column) => column.header === firstColumn)] === 'Attendance teacher';
    });
  });

  it('edits made offline are kept, also across a closed tab, and stored when the connection returns', async () => {
    const ap = people[1]!;
    const text = ATTENDANCE.questions.filter((question) => question.type === 'text' && !question.visibleWhen)[1]!;
    await ap.context.setOffline(true);
    await ap.page
      .getByRole('status')
      .filter({ hasText: /Offline/ })
      .first()
      .waitFor();
    await field(ap.page, text).fill('92% this year');
    await ap.page.getByRole('status').filter({ hasText: 'Offline: your changes are kept and will merge when you are back' }).first().waitFor();
    expect((await storedStep(ATTENDANCE_NUMBER)).data[text.id] ?? null).toBe(null);

    // The tab is closed while offline; the edit waits in this browser's IndexedDB.
    await ap.page.close();
    await ap.context.setOffline(false);
    const page = await ap.context.newPage();
    ap.page = page;
    await page.goto(`${server.url}/plans/${formId}/step/${ATTENDANCE_NUMBER}`);
    await waitFor('the offline edit in the store of record', async () => (await storedStep(ATTENDANCE_NUMBER)).data[text.id] === '92% this year');
    await waitFor('the principal sees it live', async () => (await field(people[0]!.page, text).inputValue()) === '92% this year');
  });

  it('a step whose lock another person holds shows who holds it', async () => {
    const [principal, ap] = [people[0]!, people[1]!];
    // The principal's saves above took the attendance step's lock.
    await ap.page.getByRole('link', { name: `${HARBOR}`, exact: true }).click();
    const attendanceEntry = ap.page.getByRole('navigation', { name: 'Plan steps' }).getByRole('listitem').filter({ hasText: ATTENDANCE.title });
    await attendanceEntry.getByText('Being edited by Elena Rodriguez').waitFor();
    const link = ap.page.getByRole('link', { name: ATTENDANCE.title, exact: true });
    await expect(link.getAttribute('aria-describedby')).resolves.toBeTruthy();
    await expectAccessible(ap.page, 'the plan overview with a locked step');
    expect(principal.errors).toEqual([]);
  });

  it('a comment a Super Admin writes appears in the principal’s open editor, and can be marked read', async () => {
    const principal = people[0]!;
    admin = await person(SUPERADMIN, `/plans/${formId}/step/${ATTENDANCE_NUMBER}`);
    await admin.page.getByRole('heading', { level: 1, name: ATTENDANCE.title }).waitFor();
    await admin.page.getByRole('button', { name: `Comment on step ${ATTENDANCE_NUMBER}` }).click();
    await admin.page.getByRole('textbox', { name: `Comment on step ${ATTENDANCE_NUMBER}` }).fill('Please add last year’s chronic absence rate.');
    await admin.page.getByRole('button', { name: 'Send comment' }).click();
    const comments = principal.page.getByRole('region', { name: 'Comments on this step' });
    await comments.getByText('Please add last year’s chronic absence rate.').waitFor();
    await comments.getByText('New', { exact: true }).waitFor();
    await comments.getByRole('button', { name: 'Mark read' }).click();
    await comments.getByText('New', { exact: true }).waitFor({ state: 'detached' });
    await expectAccessible(admin.page, 'the step editor as a Super Admin');
  });

  it('completes a step with the keyboard alone', async () => {
    const { page } = people[0]!;
    await page.goto(`${server.url}/plans/${formId}`);
    await page.getByRole('heading', { level: 1, name: `${HARBOR} plan for ${YEAR}` }).waitFor();
    const checkbox = CONTENTS.questions[0]!;
    const focusedIs = async (name: string) => page.evaluate((expected) => (document.activeElement?.textContent ?? '').trim() === expected, name);
    for (let presses = 0; presses < 80 && !(await focusedIs(CONTENTS.title)); presses++) await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: CONTENTS.title }).waitFor();
    const box = page.getByRole('checkbox', { name: checkbox.title });
    for (let presses = 0; presses < 80 && !(await box.evaluate((element) => element === document.activeElement)); presses++) await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    await expect(box.isChecked()).resolves.toBe(true);
    await page.getByRole('navigation', { name: 'Plan steps' }).getByText('Step 1 · Complete').waitFor();
    await waitFor('step 1 stored as complete', async () => (await storedStep(1)).completed);
  });

  it('attests and submits from the dialogs; the new status reaches everyone on the plan', async () => {
    const [principal, ap] = [people[0]!, people[1]!];
    const { page } = principal;
    await page.goto(`${server.url}/plans/${formId}`);
    await page.getByRole('button', { name: 'Attest' }).click();
    const attest = page.getByRole('dialog', { name: 'Attest this plan' });
    await attest.waitFor();
    await expectAccessible(page, 'the attestation dialog');
    await attest.getByLabel('Your full name').fill('Elena Rodriguez');
    await attest.getByRole('button', { name: 'Sign attestation' }).click();
    await page.getByText(/Signed by Elena Rodriguez/).waitFor();

    await page.getByRole('button', { name: 'Submit…' }).click();
    const submit = page.getByRole('dialog', { name: 'Submit this plan' });
    await submit.getByText(/required questions? (is|are) not answered yet/).waitFor();
    await expectAccessible(page, 'the submit dialog');
    await submit.getByRole('button', { name: 'Submit plan' }).click();
    await page.locator('.plan-head').getByText('Submitted').waitFor();
    await ap.page.locator('.plan-head').getByText('Submitted').waitFor();
    const plan = await principalApi.get(`/api/forms/${formId}`);
    expect(plan.body.status).toBe('submitted');
    expect(plan.body.attestation).toMatchObject({ confirmed: true, name: 'Elena Rodriguez' });
    expect([...principal.errors, ...ap.errors]).toEqual([]);
  });

  it('a Super Admin reviews the submitted plan from the review dialog; the principal sees each status live', async () => {
    const principal = people[0]!;
    admin ??= await person(SUPERADMIN);
    await admin.page.goto(`${server.url}/plans/${formId}`);
    await admin.page.getByRole('button', { name: 'Review…' }).click();
    const review = admin.page.getByRole('dialog', { name: 'Review this plan' });
    await review.getByRole('radio', { name: 'Start the review' }).check();
    await expectAccessible(admin.page, 'the review dialog');
    await review.getByRole('button', { name: 'Save review' }).click();
    await principal.page.locator('.plan-head').getByText('Under review').waitFor();

    await admin.page.getByRole('button', { name: 'Review…' }).click();
    await review.getByRole('radio', { name: 'Return for changes' }).check();
    await review.getByRole('button', { name: 'Save review' }).click();
    await review.getByRole('alert').filter({ hasText: 'Say what the school should change.' }).waitFor();
    await review.getByLabel(/Comment for the school/).fill('Please name a second attendance liaison.');
    await review.getByRole('button', { name: 'Save review' }).click();
    await principal.page.locator('.plan-head').getByText('Returned for changes').waitFor();
    // The reason is on the plan page the principal has open, not only in a notification.
    await principal.page.getByText('The district says: Please name a second attendance liaison.').waitFor();
    const plan = await principalApi.get(`/api/forms/${formId}`);
    expect(plan.body).toMatchObject({ status: 'rejected', reviewComment: 'Please name a second attendance liaison.' });
  });

  it('compares with last year: the count, a changed-only filter, every step on request, and links to the questions', async () => {
    const { page } = people[0]!;
    await page.goto(`${server.url}/plans/${formId}`);
    await page.getByRole('link', { name: 'Compare with last year' }).click();
    await page.getByRole('heading', { level: 1, name: 'Compare with last year' }).waitFor();
    const expected = (await principalApi.get(`/api/forms/${formId}/compare`)).body as { changedCount: number; rows: { changed: boolean }[] };
    await page.getByText(`${expected.changedCount} answers differ`).waitFor();
    await expectAccessible(page, 'the compare page');
    const table = page.getByRole('table', { name: /Answers of/ });
    await expect(table.locator('tbody tr').count()).resolves.toBe(expected.rows.length);
    await page.getByRole('checkbox', { name: 'Show changed answers only' }).check();
    await expect(table.locator('tbody tr').count()).resolves.toBe(expected.rows.filter((row) => row.changed).length);
    await page.getByRole('button', { name: 'Compare every step' }).click();
    await page.waitForURL(/steps=all/);
    await page.getByText(/across every step/).waitFor();
    const attendanceText = firstOfType('attendancePlan', 'text');
    await page.getByRole('link', { name: `${attendanceText.number}. ${attendanceText.title}` }).click();
    await page.getByRole('heading', { level: 1, name: ATTENDANCE.title }).waitFor();
  });

  it('shows the whole plan read-only in bank order with contents, stored answers and a print layout', async () => {
    const { page } = people[0]!;
    await page.goto(`${server.url}/plans/${formId}`);
    await page.getByRole('link', { name: 'View the whole plan' }).click();
    await page.getByRole('navigation', { name: 'Contents' }).getByRole('link', { name: ATTENDANCE.title }).waitFor();
    const headings = await page.getByRole('heading', { level: 2, name: /^Step \d+:/ }).allInnerTexts();
    expect(headings).toEqual(BUNDLED_BANK.steps.map((step, index) => `Step ${index + 1}: ${step.title}`));
    const text = firstOfType('attendancePlan', 'text');
    const section = page.getByRole('region', { name: `Step ${ATTENDANCE_NUMBER}: ${ATTENDANCE.title}` });
    await section.getByText('Rahim Uddin, Attendance Teacher').waitFor();
    await expect(section.getByText(`Q${text.number}: ${text.title}`).count()).resolves.toBe(1);
    await expect(page.getByText('Not answered').count()).resolves.toBeGreaterThan(0);
    await expectAccessible(page, 'the whole-plan view');
    await page.emulateMedia({ media: 'print' });
    await expect(page.getByRole('button', { name: 'Print' }).isVisible()).resolves.toBe(false);
    await expect(page.locator('.site-header').isVisible()).resolves.toBe(false);
    await page.emulateMedia({ media: 'screen' });
  });

  it('shows view-only and archived plans read-only, saying why', async () => {
    const coordinator = await person('coordinator.harbor@example.org', `/plans/${formId}/step/${ATTENDANCE_NUMBER}`);
    await coordinator.page.getByText('You can read this step but not change it.').waitFor();
    const text = firstOfType('attendancePlan', 'text');
    await expect(field(coordinator.page, text).getAttribute('readonly')).resolves.not.toBeNull();
    await expectAccessible(coordinator.page, 'a view-only step');

    const previous = (await principalApi.get('/api/forms')).body.forms.find(
      (form: { schoolName: string; locked: boolean }) => form.schoolName === HARBOR && form.locked,
    );
    const { page } = people[0]!;
    await page.goto(`${server.url}/plans/${previous._id}/step/${ATTENDANCE_NUMBER}`);
    await page.getByText(/school year is archived, so this plan is read-only/).waitFor();
    await expect(field(page, text).getAttribute('readonly')).resolves.not.toBeNull();
    await expect(page.getByRole('button', { name: /Add row/ }).count()).resolves.toBe(0);
  });

  it('asks before leaving only while work is unsaved', async () => {
    const principal = await person(PRINCIPAL, `/plans/${formId}/step/${stepNumberOf('temporaryHousing')}`);
    const { page } = principal;
    await page
      .getByRole('status')
      .filter({ hasText: /All changes saved/ })
      .first()
      .waitFor();
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss();
    });
    const text = firstOfType('temporaryHousing', 'text');
    await field(page, text).fill('Ms. Chen');
    await page.close({ runBeforeUnload: true });
    await waitFor('the leave-page question', () => asked.includes('beforeunload'));

    const again = await principal.context.newPage();
    principal.page = again;
    again.on('dialog', (dialog) => {
      asked.push(`again:${dialog.type()}`);
      void dialog.accept();
    });
    await again.goto(`${server.url}/plans/${formId}/step/${stepNumberOf('temporaryHousing')}`);
    await again
      .getByRole('status')
      .filter({ hasText: /Saved at|All changes saved/ })
      .first()
      .waitFor();
    await waitFor('the kept answer saved', async () => (await storedStep(stepNumberOf('temporaryHousing'))).data[text.id] === 'Ms. Chen');
    await again.reload();
    await again.getByRole('heading', { level: 1 }).waitFor();
    expect(asked.filter((entry) => entry.startsWith('again:'))).toEqual([]);
  });

  it('reopening a step straight after leaving it (its last save still on the way) keeps it live and saving', async () => {
    const { page } = people[0]!;
    const housing = stepNumberOf('temporaryHousing');
    const housingStep = stepOf('temporaryHousing');
    await page.goto(`${server.url}/plans/${formId}/step/${housing}`);
    await page
      .getByRole('status')
      .filter({ hasText: /All changes saved|Saved at/ })
      .first()
      .waitFor();
    const text = firstOfType('temporaryHousing', 'text');
    await field(page, text).fill('Left in a hurry');
    await page.getByRole('link', { name: /^Step \d+: .* →$/ }).click();
    // Back as soon as the next step's address is in the history (the last save may still be on its way).
    await page.waitForURL((url) => url.pathname.endsWith(`/step/${housing + 1}`));
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: housingStep.title }).waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: /All changes saved|Saved at/ })
      .first()
      .waitFor();
    await waitFor('the answer left behind is stored', async () => (await storedStep(housing)).data[text.id] === 'Left in a hurry');
    await field(page, text).fill('Back again');
    await waitFor('the reopened step saves', async () => (await storedStep(housing)).data[text.id] === 'Back again');
    expect(people[0]!.errors).toEqual([]);
  });

  it('reports an uncaught error to the client-error sink and shows a way back from a missing plan', async () => {
    const { page } = people[0]!;
    await page.goto(`${server.url}/plans`);
    await page.getByRole('heading', { level: 1, name: 'Your plans' }).waitFor();
    const report = page.waitForRequest((request) => request.url().endsWith('/api/client-errors') && request.method() === 'POST');
    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('Something broke in a timer');
      }),
    );
    const sent = await report;
    expect(sent.postDataJSON()).toMatchObject({ message: expect.stringContaining('Something broke in a timer'), url: `${server.url}/plans` });
    expect((await sent.response())?.ok()).toBe(true);

    await page.goto(`${server.url}/plans/${'0'.repeat(24)}`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByText('This plan does not exist. It may have been deleted.').waitFor();
    await expectAccessible(page, 'the error page');
    await page.getByRole('link', { name: 'Go to your plans' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your plans' }).waitFor();
  });

  it('a principal shares the plan with a teacher for viewing one section, and takes it back', async () => {
    const { page } = people[0]!;
    await page.goto(`${server.url}/plans/${formId}`);
    await page.getByRole('button', { name: 'Share…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this plan' });
    await dialog.getByRole('checkbox', { name: /Samuel Okafor/ }).check();
    await dialog.getByRole('radio', { name: 'View only' }).check();
    await dialog.getByRole('radio', { name: 'Only these sections:' }).check();
    await dialog.getByRole('checkbox', { name: `${ATTENDANCE_NUMBER}. ${ATTENDANCE.title}` }).check();
    await expectAccessible(page, 'the share dialog');
    await dialog.getByRole('button', { name: 'Share', exact: true }).click();
    await dialog.getByRole('listitem').filter({ hasText: 'Samuel Okafor · Staff · can view (Attendance Plan)' }).waitFor();
    const shares = (await principalApi.get(`/api/admin/forms/share?formId=${formId}`)).body.shares as {
      email: string;
      permissions: string;
      sections: string[];
    }[];
    expect(shares.find((share) => share.email === 'teacher.harbor@example.org')).toMatchObject({ permissions: 'view', sections: ['attendancePlan'] });

    await dialog.getByRole('button', { name: 'Remove access for Samuel Okafor' }).click();
    await waitFor('the share removed', async () => {
      const now = (await principalApi.get(`/api/admin/forms/share?formId=${formId}`)).body.shares as { email: string }[];
      return !now.some((share) => share.email === 'teacher.harbor@example.org');
    });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('shows review flags on a copied plan and clears one with Mark reviewed', async () => {
    const previous = (await principalApi.get('/api/forms')).body.forms.find(
      (form: { schoolName: string; schoolYear: string }) => form.schoolName === HARBOR && form.schoolYear !== YEAR,
    );
    const copy = await principalApi.post(`/api/forms/${previous._id}/duplicate`, { schoolYear: nextSchoolYear(YEAR) });
    expect(copy.status).toBe(200);
    const flags = (await principalApi.get(`/api/forms/${copy.body.formId}`)).body.needsUpdate as { questionId: string; stepKey: string }[];
    expect(flags.length).toBeGreaterThan(0);
    const flag = flags[0]!;
    const question = stepOf(flag.stepKey).questions.find((candidate) => candidate.id === flag.questionId)!;

    const { page } = people[0]!;
    await page.goto(`${server.url}/plans/${copy.body.formId}/step/${stepNumberOf(flag.stepKey)}`);
    const card = page.getByRole('group', { name: question.title });
    await card.getByText(/Same as last year|New this year|Changed/).waitFor();
    await expectAccessible(page, 'a step with review flags');
    await card.getByRole('button', { name: `Mark reviewed: question ${question.number}` }).click();
    await waitFor('the flag is cleared in the store', async () => {
      const now = (await principalApi.get(`/api/forms/${copy.body.formId}`)).body.needsUpdate as { questionId: string }[];
      return now.length === flags.length - 1 && !now.some((remaining) => remaining.questionId === flag.questionId);
    });
    await expect(card.getByRole('button', { name: `Mark reviewed: question ${question.number}` }).count()).resolves.toBe(0);
  });
});
