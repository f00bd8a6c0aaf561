import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { PLAN_STATUS_LABELS, currentSchoolYear, nextSchoolYear, requiredProgress } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';
import { waitFor } from '../server/src/testing/wait.ts';

/** The signed-in home in real Chromium: plans, deadlines, live review pings, next-year copy, role preview. */
const HARBOR = 'Harbor View Academy';
const YEAR = currentSchoolYear();
const NEXT = nextSchoolYear(YEAR);

let server: TestServer;
let browser: Browser;
let principalApi: HttpClient;
let adminApi: HttpClient;
let formId: string;
const people: Person[] = [];

const statusLabels: Record<string, string> = PLAN_STATUS_LABELS;
const isoDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  [principalApi, adminApi] = await signInAll(server.url, ['principal.harbor@example.org', 'superadmin@example.org'] as const);
  formId = (await principalApi.get(`/api/forms?schoolYear=${YEAR}`)).body.forms.find((form: { schoolName: string }) => form.schoolName === HARBOR)._id;
  const deadlines = [
    { stepKey: 'tableOfContents', label: 'Contents confirmed', dueDate: isoDay(-3) },
    { stepKey: 'attendancePlan', label: 'Attendance plan', dueDate: isoDay(10) },
  ];
  expect((await adminApi.put('/api/school-year', { schoolYear: YEAR, deadlines })).status).toBe(200);
});
afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the dashboard in a real browser', () => {
  it('shows a principal their plans and the year’s deadlines with what is due or overdue', async () => {
    const principal = await signInAs(browser, server.url, 'principal.harbor@example.org', '/dashboard');
    people.push(principal);
    const { page } = principal;
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await page
      .getByRole('region', { name: `Plans for ${YEAR}`, exact: true })
      .getByRole('link', { name: `${HARBOR} ${YEAR}` })
      .waitFor();
    const deadlines = page.getByRole('region', { name: 'Deadlines' });
    await deadlines.getByRole('listitem').filter({ hasText: 'Contents confirmed' }).getByText('Overdue for 1 plan').waitFor();
    await deadlines.getByRole('listitem').filter({ hasText: 'Attendance plan' }).getByText('Due in 10 days').waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: `${HARBOR} ${YEAR}: Submit` })
      .waitFor();
    await expectAccessible(page, 'the principal’s dashboard');
    expect(principal.errors).toEqual([]);
  });

  it('shows a principal each plan’s required answers and who is on their school’s plan now (live) and who has access', async () => {
    const { page } = people[0]!;
    const full = (await principalApi.get(`/api/forms/${formId}`)).body;
    const bank = (await principalApi.get(`/api/question-bank${full.questionBankVersion ? `?version=${full.questionBankVersion}` : ''}`)).body;
    const progress = requiredProgress(bank.steps, full.formData);
    expect(progress.required).toBeGreaterThan(0);
    const row = page.getByRole('region', { name: `Plans for ${YEAR}`, exact: true }).getByRole('row', { name: new RegExp(`${HARBOR} ${YEAR}`) });
    await row.getByRole('cell', { name: `${progress.answered} of ${progress.required}`, exact: true }).waitFor();

    const onPlan = page.getByRole('region', { name: `People on the ${HARBOR} ${YEAR} plan` });
    await onPlan.getByText('Nobody is on the plan right now.').waitFor();
    // Who has access: the owner and the assistant principal the demo shares it with.
    expect(full.collaborationInfo.shares.map((share: { name: string }) => share.name)).toContain('Marcus Bell');
    await onPlan.getByRole('listitem').filter({ hasText: 'Marcus Bell' }).filter({ hasText: 'can edit' }).waitFor();
    await onPlan.getByRole('listitem').filter({ hasText: 'Elena Rodriguez · owner' }).waitFor();

    // The assistant principal opens a step: the dashboard shows it at once, and the principal is not listed.
    const assistant = await signInAs(browser, server.url, 'ap.harbor@example.org', `/plans/${formId}/step/2`);
    await onPlan.getByRole('link', { name: /Marcus Bell · Step 2/ }).waitFor();
    expect(await onPlan.getByText('Elena Rodriguez (you)').count()).toBe(0);
    await expectAccessible(page, 'the principal’s dashboard with someone on the plan');
    await assistant.context.close();
    await onPlan.getByText('Nobody is on the plan right now.').waitFor();
    expect(assistant.errors).toEqual([]);
  });

  it('shows a review ping the moment it is sent, and stores that it was read', async () => {
    const { page } = people[0]!;
    const notifications = page.getByRole('region', { name: /Notifications/ });
    await notifications.getByText(/No notifications yet/).waitFor();
    expect((await adminApi.post(`/api/forms/${formId}/comments`, { comment: 'Please check the liaison list.' })).status).toBe(200);
    const ping = notifications.getByRole('listitem').filter({ hasText: 'Dana Whitfield commented on the plan' });
    await ping.waitFor();
    // The plan's open comments count follows the same push.
    await page
      .getByRole('region', { name: `Plans for ${YEAR}`, exact: true })
      .getByRole('row', { name: new RegExp(`${HARBOR} ${YEAR}`) })
      .getByRole('cell', { name: '1', exact: true })
      .waitFor();
    await notifications.getByText('1 unread').waitFor();
    await ping.getByRole('button', { name: /^Mark read/ }).click();
    await waitFor('the read state stored', async () =>
      (await principalApi.get('/api/notifications')).body.notifications.every((item: { readAt: string | null }) => item.readAt),
    );
    // The page learns it from the answer to its own request, which may land after the read above.
    await notifications.getByText('1 unread').waitFor({ state: 'detached' });
  });

  it('copies the plan into next year, and then offers the existing copy', async () => {
    const { page } = people[0]!;
    await page.getByRole('button', { name: `Copy to ${NEXT}` }).click();
    await page.waitForURL(/\/plans\/[0-9a-f]{24}$/);
    await page.getByRole('heading', { level: 1, name: `${HARBOR} plan for ${NEXT}` }).waitFor();
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: `Copy to ${NEXT}` }).click();
    await page.getByText(`${HARBOR} already has a ${NEXT} plan.`).waitFor();
    await page.getByRole('link', { name: 'Open the existing plan' }).click();
    await page.getByRole('heading', { level: 1, name: `${HARBOR} plan for ${NEXT}` }).waitFor();
  });

  it('lets a principal create their school’s plan for a year that has none', async () => {
    const principal = await signInAs(browser, server.url, 'principal.riverside@example.org', `/dashboard?year=${NEXT}`);
    people.push(principal);
    await principal.page.getByRole('button', { name: `Create the ${NEXT} plan for Riverside Learning Center` }).click();
    await principal.page.getByRole('heading', { level: 1, name: `Riverside Learning Center plan for ${NEXT}` }).waitFor();
  });

  it('shows a Super Admin the district figures as tables matching the API, each downloadable as CSV', async () => {
    const admin = await signInAs(browser, server.url, 'superadmin@example.org', '/dashboard');
    people.push(admin);
    const { page } = admin;
    const figures = (await adminApi.get(`/api/admin/reports/figures?schoolYear=${YEAR}`)).body as {
      byStatus: { status: string; count: number }[];
      completionByStep: { title: string; completed: number; total: number }[];
    };
    const statusTable = page.getByRole('table', { name: `Plans by status, ${YEAR}` });
    await statusTable.waitFor();
    const shown = await statusTable.locator('tbody tr').allInnerTexts();
    expect(shown.map((row) => Number(row.split('\t').at(-1)))).toEqual(figures.byStatus.map((row) => row.count));
    const stepTable = page.getByRole('table', { name: `Completion by step, ${YEAR}` });
    await expect(stepTable.locator('tbody tr').count()).resolves.toBe(figures.completionByStep.length);
    await expectAccessible(page, 'the Super Admin dashboard');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV: plans by status' }).click()]);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    expect(csv.trim().split('\r\n')).toEqual(['"Status","Plans"', ...figures.byStatus.map((row) => `"${statusLabels[row.status]}","${row.count}"`)]);

    // A plan for any school of a year that has none, owned by a principal chosen among that school's.
    const later = nextSchoolYear(NEXT);
    await page.goto(`${server.url}/dashboard?year=${later}`);
    const create = page.getByRole('region', { name: `Create a plan for ${later}` });
    await create.getByLabel('School', { exact: true }).selectOption('Riverside Learning Center');
    await expect(create.getByLabel(/Owner/).inputValue()).resolves.toBe('principal.riverside@example.org');
    await create.getByRole('button', { name: 'Create plan' }).click();
    await page.getByRole('heading', { level: 1, name: `Riverside Learning Center plan for ${later}` }).waitFor();
    const created = (await adminApi.get(`/api/forms?schoolYear=${later}`)).body.forms as { schoolName: string; principalEmail: string }[];
    expect(created).toEqual([expect.objectContaining({ schoolName: 'Riverside Learning Center', principalEmail: 'principal.riverside@example.org' })]);
    // A school that already has a plan that year: the server's reason, and nothing created.
    await page.goto(`${server.url}/dashboard?year=${later}`);
    await create.getByLabel('School', { exact: true }).selectOption('Riverside Learning Center');
    await create.getByRole('button', { name: 'Create plan' }).click();
    await create.getByRole('alert').waitFor();
    expect((await adminApi.get(`/api/forms?schoolYear=${later}`)).body.forms).toHaveLength(1);
    await admin.context.close();
  });

  it('lets a Super Admin preview the app as a demo role, with a banner on every page and a way back', async () => {
    const admin = await signInAs(browser, server.url, 'superadmin@example.org', '/dashboard');
    people.push(admin);
    const { page } = admin;
    await page.getByRole('button', { name: 'Preview as Demo Principal' }).click();
    const banner = page.getByRole('region', { name: 'Role preview' });
    await banner.getByText(/You are previewing the app as Demo Principal/).waitFor();
    await expectAccessible(page, 'the dashboard while previewing');
    await page.getByRole('link', { name: 'Your plans' }).click();
    await banner.waitFor();
    await banner.getByRole('button', { name: 'Exit preview' }).click();
    await page.getByRole('heading', { level: 1 }).waitFor();
    await waitFor('the preview ended', async () => (await page.getByRole('region', { name: 'Role preview' }).count()) === 0);
    await expect(page.getByRole('button', { name: 'Preview as Demo Principal' }).count()).resolves.toBe(0);
    expect(admin.errors).toEqual([]);
  });
});

describe('at 320 px wide', () => {
  it('every signed-in page fits the screen (nothing scrolls sideways but tables in their own frame) and passes axe-core', async () => {
    const phone = await signInAs(browser, server.url, 'principal.harbor@example.org', '/dashboard', { width: 320, height: 700 });
    people.push(phone);
    const { page } = phone;
    for (const path of ['/dashboard', '/plans', `/plans/${formId}`, `/plans/${formId}/step/6`, `/plans/${formId}/view`, `/plans/${formId}/compare`, '/']) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${path} is ${width} px wide`).toBeLessThanOrEqual(320);
      await expectAccessible(page, `${path} at 320 px`);
    }
  });
});
