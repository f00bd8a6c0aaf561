import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { currentSchoolYear, nextSchoolYear, previousSchoolYear } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { plans } from '../server/src/storage/schema.ts';
import { newId } from '../server/src/storage/ids.ts';

/**
 * The School years admin page in real Chromium, as the demo district's Super Admin: a year's
 * deadline and district goal saved (read back through the API); next-year setup and the server's
 * refusal shown in its own words; rollover progress pushed by the gateway; the district rollover
 * confirmed, watched to the end, its report (created and skipped) checked against the API and
 * downloaded as CSV, and shown again on a new visit; archiving and reopening by hand; a rollover of
 * 450 schools whose status shows each batch's figures as the gateway pushes them; axe-core on the
 * page and its confirmations; 320 px wide; refused to a principal.
 */
const HARBOR = 'Harbor View Academy';
const RIVERSIDE = 'Riverside Learning Center';
const YEAR = currentSchoolYear();
const PREVIOUS = previousSchoolYear(YEAR);
const NEXT = nextSchoolYear(YEAR);
const AFTER_NEXT = nextSchoolYear(NEXT);
const PAGE = '/admin/school-years';
/** Screenshots for people to look at, only when asked for. */
const SHOTS = process.env.SCREENSHOTS_DIR;

let server: TestServer;
let browser: Browser;
let adminApi: HttpClient;
let admin: Person;
const people: Person[] = [];

/** The whole page, or the screen with `at` scrolled into view. */
async function shot(page: Page, name: string, at?: Locator) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  if (at) await at.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: !at });
}

/** Elements reaching past the right edge, outside a table's own scroll frame (for the failure message). */
const overflowing = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !element.closest('.table-wrap'))
      .slice(0, 10)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className} ends at ${Math.round(element.getBoundingClientRect().right)} px`),
  );

async function expectNarrow(page: Page, what: string) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width <= 320 ? [] : await overflowing(page), `${what} is ${width} px wide`).toEqual([]);
  expect(width).toBeLessThanOrEqual(320);
}

const settingsOf = async (year: string) => {
  const { status, body } = await adminApi.get(`/api/school-year?schoolYear=${year}`);
  expect(status).toBe(200);
  return body;
};
const plansOf = async (year: string): Promise<{ _id: string; schoolName: string; status: string }[]> =>
  (await adminApi.get(`/api/forms?schoolYear=${year}`)).body.forms;

/** Waits for a two-school rollover's finished line; its progress bar then stands full. */
async function finishedRollover(page: Page, from: string, to: string, outcome: string): Promise<Locator> {
  await page
    .getByRole('status')
    .filter({ hasText: `Finished: 2 of 2 schools done (${outcome}, 0 errors). ${from} is archived.` })
    .waitFor();
  const bar = page.getByRole('progressbar', { name: `Rollover of ${from} into ${to}` });
  await expect(bar.getAttribute('value')).resolves.toBe('2');
  return bar;
}

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  [adminApi] = await signInAll(server.url, ['superadmin@example.org'] as const);
  admin = await signInAs(browser, server.url, 'superadmin@example.org', PAGE);
  people.push(admin);
});
afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the School years page', () => {
  it('lists the years with their state and plan counts, and passes axe-core', async () => {
    const { page } = admin;
    await page.getByRole('heading', { level: 1, name: 'School years' }).waitFor();
    const years = page.getByRole('region', { name: 'School years', exact: true });
    const current = years.getByRole('row', { name: new RegExp(`^${YEAR}`) });
    await current.getByRole('cell', { name: 'Live' }).waitFor();
    await expect(current.getByRole('cell').nth(2).innerText()).resolves.toBe('2');
    await years
      .getByRole('row', { name: new RegExp(`^${PREVIOUS}`) })
      .getByRole('cell', { name: 'Archived' })
      .waitFor();
    await page.getByRole('heading', { level: 2, name: `Settings for ${YEAR}` }).waitFor();
    await page.getByRole('button', { name: `Save ${YEAR} settings` }).waitFor();
    await page.getByText('Live progress is on.').waitFor();
    await expectAccessible(page, 'the School years page');
    await shot(page, 'years-1280');
  });

  it('saves a deadline and a district goal of the year (read back through the API)', async () => {
    const { page } = admin;
    const bank = (await adminApi.get('/api/question-bank')).body as { steps: { key: string; title: string }[] };
    const attendance = bank.steps.find((step) => step.key === 'attendancePlan')!;
    const dueDate = `${YEAR.slice(5)}-03-15`;

    await page.getByRole('button', { name: 'Add a deadline' }).click();
    const deadline = page.getByRole('group', { name: 'Deadline 1' });
    await deadline.getByLabel('Step').selectOption({ label: attendance.title });
    await deadline.getByLabel('Label').fill('Attendance plan due');
    await deadline.getByLabel('Due date').fill(dueDate);

    await page.getByRole('button', { name: 'Add a district goal' }).click();
    const goal = page.getByRole('group', { name: 'District goal 1' });
    // An incomplete goal is refused before anything is sent, with the reason.
    await page.getByRole('button', { name: `Save ${YEAR} settings` }).click();
    await page.getByRole('alert').filter({ hasText: 'District goal 1 needs a key and a label.' }).waitFor();
    expect((await settingsOf(YEAR)).districtGoals).toEqual([]);

    await goal.getByLabel('Key').fill('attendance');
    await goal.getByLabel('Label').fill('Average daily attendance');
    await goal.getByLabel('Target').fill('95');
    await goal.getByLabel('Unit').fill('%');
    await page.getByRole('button', { name: `Save ${YEAR} settings` }).click();

    const stored = await waitFor('the settings stored', async () => {
      const settings = await settingsOf(YEAR);
      return settings.districtGoals.length === 1 ? settings : null;
    });
    expect(stored.deadlines).toEqual([{ stepKey: 'attendancePlan', label: 'Attendance plan due', dueDate }]);
    expect(stored.districtGoals).toEqual([{ key: 'attendance', label: 'Average daily attendance', target: 95, unit: '%' }]);

    // A fresh load shows what is stored.
    await page.reload();
    await expect(page.getByRole('group', { name: 'Deadline 1' }).getByLabel('Label').inputValue()).resolves.toBe('Attendance plan due');
    await expect(page.getByRole('group', { name: 'Deadline 1' }).getByLabel('Due date').inputValue()).resolves.toBe(dueDate);
    await expect(page.getByRole('group', { name: 'District goal 1' }).getByLabel('Target').inputValue()).resolves.toBe('95');
    expect(admin.errors).toEqual([]);
  });

  it('sets up next year with the carried-over settings, and shows the server’s refusal in its words', async () => {
    const { page } = admin;
    const next = page.getByRole('region', { name: 'Next year' });
    await next.getByRole('button', { name: `Set up ${NEXT}` }).click();
    await next.getByRole('button', { name: `Set up ${AFTER_NEXT}` }).waitFor();
    const setUp = await settingsOf(NEXT);
    expect(setUp).toMatchObject({ stored: true, archived: false, districtGoals: [{ key: 'attendance', target: 95 }] });
    expect(setUp.deadlines).toEqual([{ stepKey: 'attendancePlan', label: 'Attendance plan due', dueDate: `${NEXT.slice(5)}-03-15` }]);
    expect((await plansOf(NEXT)).length).toBe(0);

    // Someone else sets up the year after in the meantime: the button's request is refused with the server's reason.
    expect((await adminApi.post('/api/school-year', { fromYear: NEXT })).status).toBe(200);
    await next.getByRole('button', { name: `Set up ${AFTER_NEXT}` }).click();
    await next
      .getByRole('alert')
      .filter({ hasText: `Settings for ${AFTER_NEXT} already exist` })
      .waitFor();
    // Not needed for what follows: its settings go again (it has no plans).
    expect((await adminApi.delete('/api/school-year', { schoolYear: AFTER_NEXT })).status).toBe(200);
  });

  it('shows the progress of a rollover the same person runs elsewhere, as the gateway pushes it', async () => {
    const { page } = admin;
    await page.getByText('Live progress is on.').waitFor();
    // Last year into this year: both schools already have this year's plan, so both are skipped.
    const { status, body } = await adminApi.post('/api/admin/forms/rollover', { sourceYear: PREVIOUS, targetYear: YEAR });
    expect(status).toBe(200);
    expect(body.skipped).toHaveLength(2);
    const bar = await finishedRollover(page, PREVIOUS, YEAR, '0 created, 2 skipped');
    await expect(bar.getAttribute('max')).resolves.toBe('2');
  });

  it('runs the district rollover after a confirmation that says what will happen, and reports created and skipped schools', async () => {
    const { page } = admin;
    // Harbor already has a plan for next year: the rollover skips it.
    const created = await adminApi.post('/api/forms', { schoolName: HARBOR, schoolYear: NEXT });
    expect(created.status).toBe(200);
    const existingHarbor = created.body.formId as string;
    await page.reload();
    await page.getByRole('combobox', { name: 'Year to roll over' }).waitFor();
    await expect(page.getByRole('combobox', { name: 'Year to roll over' }).inputValue()).resolves.toBe(YEAR);

    await page.getByRole('button', { name: `Roll over ${YEAR}…` }).click();
    const dialog = page.getByRole('dialog', { name: `Roll over ${YEAR} into ${NEXT}?` });
    await dialog.getByText(`Copies up to 2 plans from ${YEAR} into ${NEXT} as drafts.`).waitFor();
    await dialog.getByText(`1 school already has a ${NEXT} plan: it is skipped.`).waitFor();
    await dialog.getByText(`Archives ${YEAR}: its plans become read-only`).waitFor();
    await expectAccessible(page, 'the rollover confirmation');
    await shot(page, 'years-rollover-confirmation');
    // Nothing happened yet.
    expect((await plansOf(NEXT)).length).toBe(1);
    expect((await settingsOf(YEAR)).archived).toBe(false);

    await dialog.getByRole('button', { name: 'Roll over 2 plans' }).click();
    await finishedRollover(page, YEAR, NEXT, '1 created, 1 skipped');

    const report = page.getByRole('region', { name: `Report: ${YEAR} into ${NEXT}` });
    const table = report.getByRole('region', { name: `Rollover report, ${YEAR} into ${NEXT}` });
    const riversideRow = table.getByRole('row', { name: new RegExp(`^${RIVERSIDE}`) });
    await riversideRow.getByRole('cell', { name: 'Created', exact: true }).waitFor();
    const harborRow = table.getByRole('row', { name: new RegExp(`^${HARBOR}`) });
    await harborRow.getByRole('cell', { name: 'Skipped', exact: true }).waitFor();
    await expect(harborRow.getByRole('link', { name: `${HARBOR} ${NEXT}` }).getAttribute('href')).resolves.toBe(`/plans/${existingHarbor}`);

    // What the route says happened, through the API: next year's plans exist, this year is archived.
    const nextPlans = await plansOf(NEXT);
    expect(nextPlans.map((plan) => plan.schoolName).sort()).toEqual([HARBOR, RIVERSIDE]);
    expect(nextPlans.find((plan) => plan.schoolName === HARBOR)!._id).toBe(existingHarbor);
    const riversidePlan = nextPlans.find((plan) => plan.schoolName === RIVERSIDE)!;
    expect(riversidePlan.status).toBe('draft');
    await expect(riversideRow.getByRole('link', { name: `${RIVERSIDE} ${NEXT}` }).getAttribute('href')).resolves.toBe(`/plans/${riversidePlan._id}`);
    expect((await settingsOf(YEAR)).archived).toBe(true);
    const progress = await adminApi.get(`/api/admin/forms/rollover?sourceYear=${YEAR}&targetYear=${NEXT}`);
    expect(progress.body.progress).toMatchObject({ state: 'done', total: 2, processed: 2, created: 1, skipped: 1, errors: 0 });

    // The years table follows: this year archived, next year with its two plans.
    const years = page.getByRole('region', { name: 'School years', exact: true });
    await years
      .getByRole('row', { name: new RegExp(`^${YEAR}`) })
      .getByRole('cell', { name: 'Archived' })
      .waitFor();
    await expect(
      years
        .getByRole('row', { name: new RegExp(`^${NEXT}`) })
        .getByRole('cell')
        .nth(2)
        .innerText(),
    ).resolves.toBe('2');

    // The report as CSV.
    const [download] = await Promise.all([page.waitForEvent('download'), report.getByRole('button', { name: 'Download the report (CSV)' }).click()]);
    expect(download.suggestedFilename()).toBe(`rollover-${YEAR}-to-${NEXT}.csv`);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.trim().split('\r\n')).toEqual([
      `"School","Outcome","${NEXT} plan id","Error"`,
      `"${RIVERSIDE}","Created","${riversidePlan._id}",""`,
      `"${HARBOR}","Skipped","${existingHarbor}",""`,
    ]);

    await expectAccessible(page, 'the School years page with the rollover report');
    await shot(page, 'years-rollover-report');
    expect(admin.errors).toEqual([]);
  });

  it('fits 320 px (nothing scrolls sideways but tables in their frame) and passes axe-core there', async () => {
    const { page } = admin;
    await page.setViewportSize({ width: 320, height: 800 });
    await page.getByRole('region', { name: `Report: ${YEAR} into ${NEXT}` }).waitFor();
    await expectNarrow(page, 'the page with the report');
    await expectAccessible(page, 'the School years page at 320 px');
    await shot(page, 'years-320-progress', page.getByRole('progressbar'));
    await shot(page, 'years-320-report', page.getByRole('region', { name: `Rollover report, ${YEAR} into ${NEXT}` }));
    await shot(page, 'years-320-top', page.getByRole('heading', { level: 1 }));
    await shot(page, 'years-320-settings', page.getByRole('group', { name: 'Deadline 1' }));

    await page.reload();
    await page.getByRole('button', { name: `Save ${YEAR} settings` }).waitFor();
    // The server keeps the finished rollover's report: a new visit shows it again.
    await page
      .getByRole('region', { name: `Rollover report, ${YEAR} into ${NEXT}` })
      .getByRole('row', { name: new RegExp(`^${RIVERSIDE}`) })
      .getByRole('cell', { name: 'Created', exact: true })
      .waitFor();
    await page.waitForLoadState('networkidle');
    await expectNarrow(page, 'the page');
    await expectAccessible(page, 'the School years page at 320 px, reloaded');
    await page.getByRole('button', { name: `Roll over ${NEXT}…` }).click();
    await page.getByRole('dialog', { name: `Roll over ${NEXT} into ${AFTER_NEXT}?` }).waitFor();
    await expectNarrow(page, 'the page with the confirmation');
    await expectAccessible(page, 'the rollover confirmation at 320 px');
    await shot(page, 'years-320-confirmation', page.getByRole('dialog'));
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: `Roll over ${NEXT}…` }).waitFor();
    expect(admin.errors).toEqual([]);
  });
});

describe('archiving by hand', () => {
  it('archives a year and reopens it, each after a confirmation, with focus back on the button', async () => {
    const { page } = admin;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('region', { name: 'School years', exact: true }).getByRole('link', { name: NEXT }).click();
    await page.getByRole('heading', { level: 2, name: `Settings for ${NEXT}` }).waitFor();
    await page.getByRole('button', { name: `Archive ${NEXT}…` }).click();
    const dialog = page.getByRole('dialog', { name: `Archive ${NEXT}?` });
    await dialog.getByText(`All 2 plans of ${NEXT} become read-only`).waitFor();
    await expectAccessible(page, 'the archive confirmation');
    expect((await settingsOf(NEXT)).archived).toBe(false);
    await dialog.getByRole('button', { name: `Archive ${NEXT}`, exact: true }).click();
    await page.getByRole('button', { name: `Reopen ${NEXT}…` }).waitFor();
    expect((await settingsOf(NEXT)).archived).toBe(true);
    await waitFor('focus back on the button', () => page.evaluate(() => document.activeElement?.textContent?.trim().startsWith('Reopen')));
    await page
      .getByRole('region', { name: 'School years', exact: true })
      .getByRole('row', { name: new RegExp(`^${NEXT}`) })
      .getByRole('cell', { name: 'Archived' })
      .waitFor();

    await page.getByRole('button', { name: `Reopen ${NEXT}…` }).click();
    await page
      .getByRole('dialog', { name: `Reopen ${NEXT}?` })
      .getByRole('button', { name: `Reopen ${NEXT}`, exact: true })
      .click();
    await page.getByRole('button', { name: `Archive ${NEXT}…` }).waitFor();
    expect((await settingsOf(NEXT)).archived).toBe(false);
    expect(admin.errors).toEqual([]);
  });
});

describe('a rollover of several batches', () => {
  it('shows the schools done of the total as each batch finishes, then the report', async () => {
    const { page } = admin;
    // 450 schools in a year of their own: three batches of 200 at most.
    const SOURCE = '2300-2301';
    const TARGET = '2301-2302';
    const SCHOOLS = 450;
    const db = server.services.storage.db;
    const owner = (await adminApi.get('/api/users?q=principal.harbor')).body.users.find(
      (user: { email: string }) => user.email === 'principal.harbor@example.org',
    ) as { _id: string };
    await db.insert(plans).values(
      Array.from({ length: SCHOOLS }, (_, index) => ({
        id: newId(),
        schoolName: `Batch School ${String(index + 1).padStart(3, '0')}`,
        schoolYear: SOURCE,
        userId: owner._id,
      })),
    );
    await page.reload();
    const source = page.getByRole('combobox', { name: 'Year to roll over' });
    await source.selectOption({ label: `${SOURCE} into ${TARGET} (450 plans)` });
    // Every text the progress status shows, as it shows it.
    await page.evaluate(() => {
      const status = document.querySelector('.progress-text')!;
      const seen: string[] = [];
      (window as unknown as { statuses: string[] }).statuses = seen;
      new MutationObserver(() => seen.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    });
    await page.getByRole('button', { name: `Roll over ${SOURCE}…` }).click();
    await page
      .getByRole('dialog', { name: `Roll over ${SOURCE} into ${TARGET}?` })
      .getByRole('button', { name: 'Roll over 450 plans' })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: `Finished: 450 of 450 schools done (450 created, 0 skipped, 0 errors). ${SOURCE} is archived.` })
      .waitFor();
    const statuses = await page.evaluate(() => (window as unknown as { statuses: string[] }).statuses);
    const running = statuses.filter((text) => text.startsWith('Running:'));
    expect(running).toContain('Running: 200 of 450 schools done (200 created, 0 skipped, 0 errors).');
    expect(running).toContain('Running: 400 of 450 schools done (400 created, 0 skipped, 0 errors).');
    await page
      .getByRole('region', { name: `Report: ${SOURCE} into ${TARGET}` })
      .getByRole('navigation', { name: 'Pages of schools' })
      .getByText('1–50 of 450 schools')
      .waitFor();
    expect((await settingsOf(TARGET)).planCounts).toEqual({ total: SCHOOLS, unfinished: SCHOOLS, liveOverrides: 0 });
    expect((await settingsOf(SOURCE)).archived).toBe(true);
    expect(admin.errors).toEqual([]);
  });
});

describe('for anyone but a Super Admin', () => {
  it('the admin layout refuses the page', async () => {
    const principal = await signInAs(browser, server.url, 'principal.harbor@example.org', PAGE);
    people.push(principal);
    await principal.page.getByRole('heading', { level: 1, name: 'Not available to you' }).waitFor();
    await expect(principal.page.getByRole('button', { name: /Roll over/ }).count()).resolves.toBe(0);
  });
});
