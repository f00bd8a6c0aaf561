import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { currentSchoolYear } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { parseCsv } from '../server/src/testing/csv.ts';

/** The admin area's navigation per role, and the admin plans table in real Chromium. */
const YEAR = currentSchoolYear();
const HARBOR = 'Harbor View Academy';
const RIVERSIDE = 'Riverside Learning Center';
const ADMIN_LINKS = ['Plans', 'Users', 'School years', 'Question bank', 'Audit log', 'System'];

let server: TestServer;
let browser: Browser;
let adminApi: HttpClient;
let harborPrincipal: HttpClient;
let riversidePrincipal: HttpClient;
const people: Person[] = [];

const formIdOf = async (school: string) =>
  ((await adminApi.get(`/api/forms?schoolYear=${YEAR}`)).body.forms as { _id: string; schoolName: string }[]).find((form) => form.schoolName === school)!._id;
const statusOf = async (id: string) => (await adminApi.get(`/api/forms/${id}`)).body.status as string;
const table = (page: Page) => page.getByRole('region', { name: new RegExp(`^Plans for ${YEAR}`) });
const row = (page: Page, name: string) => table(page).getByRole('row', { name: new RegExp(name) });

async function signIn(email: string, path: string, viewport?: { width: number; height: number }) {
  const person = await signInAs(browser, server.url, email, path, viewport);
  people.push(person);
  return person;
}

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  [adminApi, harborPrincipal, riversidePrincipal] = await signInAll(server.url, [
    'superadmin@example.org',
    'principal.harbor@example.org',
    'principal.riverside@example.org',
  ] as const);
});
afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the admin area', () => {
  it('shows each role only the admin pages it may use', async () => {
    const admin = await signIn('superadmin@example.org', '/dashboard');
    await admin.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' }).click();
    await admin.page.waitForURL(/\/admin\/plans$/);
    const adminNav = admin.page.getByRole('navigation', { name: 'Administration' });
    await expect(adminNav.getByRole('link').allInnerTexts()).resolves.toEqual(ADMIN_LINKS);
    await expect(adminNav.getByRole('link', { name: 'Plans' }).getAttribute('aria-current')).resolves.toBe('page');

    const principal = await signIn('principal.harbor@example.org', '/dashboard');
    await principal.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' }).click();
    await principal.page.waitForURL(/\/admin\/users$/);
    await expect(principal.page.getByRole('navigation', { name: 'Administration' }).getByRole('link').allInnerTexts()).resolves.toEqual(['Users']);
    await principal.page.goto(`${server.url}/admin/plans`);
    await principal.page.getByRole('heading', { name: 'Not available to you' }).waitFor();
    expect(await principal.page.getByRole('table').count()).toBe(0);
    await expectAccessible(principal.page, 'an admin page a principal may not use');

    const teacher = await signIn('teacher.harbor@example.org', '/dashboard');
    await teacher.page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    expect(await teacher.page.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    for (const person of [admin, principal, teacher]) expect(person.errors).toEqual([]);
  });

  it('a Super Admin finds a submitted plan by its status, reviews and approves it', async () => {
    const harborId = await formIdOf(HARBOR);
    expect((await harborPrincipal.put(`/api/forms/${harborId}`, { action: 'submit' })).status).toBe(200);
    const { page, errors } = await signIn('superadmin@example.org', '/admin/plans');
    await row(page, RIVERSIDE).waitFor();

    await page.getByRole('button', { name: /Submitted/ }).click();
    await page.waitForURL(/status=submitted/);
    await expect(page.getByRole('button', { name: /Submitted/ }).getAttribute('aria-pressed')).resolves.toBe('true');
    await waitFor('only submitted plans listed', async () => (await table(page).getByRole('row').count()) === 2);
    await row(page, HARBOR).waitFor();
    await expectAccessible(page, 'the admin plans table, filtered');

    const review = async (decision: string) => {
      await row(page, HARBOR)
        .getByRole('button', { name: `Actions for ${HARBOR} ${YEAR}` })
        .click();
      await expectAccessible(page, 'the row actions menu');
      await page.getByRole('menuitem', { name: 'Review…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Review this plan' });
      await dialog.getByRole('radio', { name: decision }).check();
      await expectAccessible(page, 'the review dialog');
      await dialog.getByRole('button', { name: 'Save review' }).click();
      await dialog.waitFor({ state: 'hidden' });
    };
    await review('Start the review');
    await waitFor('the plan under review', async () => (await statusOf(harborId)) === 'under_review');
    await page.getByRole('button', { name: /All plans/ }).click();
    await row(page, HARBOR).getByText('Under review').waitFor();
    await review('Approve');
    await waitFor('the plan approved', async () => (await statusOf(harborId)) === 'approved');
    await row(page, HARBOR).getByText('Approved').waitFor();
    expect(errors).toEqual([]);
  });

  it('selects several plans for a status review and shows each plan’s outcome', async () => {
    const riversideId = await formIdOf(RIVERSIDE);
    expect((await riversidePrincipal.put(`/api/forms/${riversideId}`, { action: 'submit' })).status).toBe(200);
    const { page } = await signIn('superadmin@example.org', '/admin/plans');
    await row(page, RIVERSIDE).getByText('Submitted').waitFor();
    await page.getByRole('checkbox', { name: `Select ${RIVERSIDE} ${YEAR}` }).check();
    await page.getByRole('checkbox', { name: `Select ${HARBOR} ${YEAR}` }).check();
    await page.getByRole('button', { name: 'Start review of selected' }).click();
    const results = page.getByRole('status').filter({ hasText: 'Review results' });
    await results.getByText(`${RIVERSIDE} ${YEAR}: now under review`).waitFor();
    await results.getByText(`${HARBOR} ${YEAR}: skipped: it is approved`).waitFor();
    expect(await statusOf(riversideId)).toBe('under_review');
    await expectAccessible(page, 'the plans table with review results');
  });

  it('searches, sorts on the server and exports the filtered list as CSV', async () => {
    const { page } = await signIn('superadmin@example.org', '/admin/plans');
    await page.getByRole('searchbox', { name: 'Search school or principal' }).fill('river');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=river/);
    await waitFor('only Riverside listed', async () => (await table(page).getByRole('row').count()) === 2);
    await row(page, RIVERSIDE).waitFor();

    await page.getByRole('searchbox', { name: 'Search school or principal' }).fill('');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await row(page, HARBOR).waitFor();
    await table(page)
      .getByRole('button', { name: /School/ })
      .click();
    await page.waitForURL(/sort=school/);
    await table(page)
      .getByRole('button', { name: /School/ })
      .click();
    await page.waitForURL(/order=desc/);
    await expect(
      table(page)
        .getByRole('columnheader', { name: /School/ })
        .getAttribute('aria-sort'),
    ).resolves.toBe('descending');
    const api = (await adminApi.get(`/api/forms?schoolYear=${YEAR}&sort=school&order=desc`)).body.forms as { schoolName: string }[];
    await waitFor('rows in the server’s order', async () => {
      const shown = await table(page).locator('tbody th, tbody td a').allInnerTexts();
      return shown.join('|') === api.map((plan) => `${plan.schoolName} ${YEAR}`).join('|');
    });

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = fs.readFileSync((await (await download).path())!, 'utf8');
    const lines = parseCsv(csv, { whole: true });
    expect(lines[0]).toEqual(['School', 'School year', 'Principal', 'Status', 'Steps complete', 'Review flags', 'Last edit']);
    expect(lines.slice(1).map((line) => line[0])).toEqual(api.map((plan) => plan.schoolName));
  });

  it('deletes a plan only after the school’s name is typed', async () => {
    const schoolName = `Throwaway School ${Date.now()}`;
    const created = await adminApi.post('/api/forms', { schoolName, schoolYear: YEAR, initialOwnerEmail: 'principal.harbor@example.org' });
    expect(created.status).toBe(200);
    const { page } = await signIn('superadmin@example.org', `/admin/plans?q=${encodeURIComponent('Throwaway')}`);
    await row(page, schoolName)
      .getByRole('button', { name: `Actions for ${schoolName} ${YEAR}` })
      .click();
    await page.getByRole('menuitem', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this plan?' });
    await dialog.getByRole('textbox', { name: /Type the school's name/ }).fill('Wrong name');
    await dialog.getByRole('button', { name: `Delete ${schoolName} ${YEAR}` }).click();
    await dialog.getByRole('alert').getByText(`Type ${schoolName} exactly to confirm.`).waitFor();
    expect((await adminApi.get(`/api/forms/${created.body.formId}`)).status).toBe(200);
    await expectAccessible(page, 'the delete confirmation with its refusal');
    await dialog.getByRole('textbox', { name: /Type the school's name/ }).fill(schoolName);
    await dialog.getByRole('button', { name: `Delete ${schoolName} ${YEAR}` }).click();
    await dialog.waitFor({ state: 'hidden' });
    await waitFor('the plan gone', async () => (await adminApi.get(`/api/forms/${created.body.formId}`)).status === 404);
    await table(page).getByText('No plans match.').waitFor();
  });

  it('fits a 320 px screen and passes axe-core there', async () => {
    const { page } = await signIn('superadmin@example.org', '/admin/plans', { width: 320, height: 740 });
    await row(page, HARBOR).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await expectAccessible(page, 'the admin plans page at 320 px');
  });
});
