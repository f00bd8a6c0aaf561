import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { currentSchoolYear } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { plans, users } from '../server/src/storage/schema.ts';
import { newId } from '../server/src/storage/ids.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';

/**
 * Lists at more than a page. "Your plans": every plan is reachable, by the pager's buttons and by
 * typing a page number, and the address keeps the page (a link shows the same one). The users
 * directory: a page turn is one request, so quick paging stays far inside the 60-a-minute limit.
 */
const YEAR = currentSchoolYear();
/** With the demo district's two plans of the year: 123 plans, three pages of 50. */
const EXTRA_PLANS = 121;
/** Enough staff for 40 pages of the users directory (25 a page). */
const EXTRA_USERS = 1_000;

let server: TestServer;
let browser: Browser;
let admin: Person;

beforeAll(async () => {
  server = await startTestServer();
  await server.services.storage.db.insert(plans).values(
    Array.from({ length: EXTRA_PLANS }, (_, index) => ({
      id: newId(),
      schoolName: `Paging School ${String(index + 1).padStart(3, '0')}`,
      schoolYear: YEAR,
      questionBankVersion: BUNDLED_BANK.version,
    })),
  );
  await server.services.storage.db.insert(users).values(
    Array.from({ length: EXTRA_USERS }, (_, index) => ({
      id: newId(),
      email: `paging.staff.${index}@example.org`,
      name: `Paging Staff ${String(index).padStart(4, '0')}`,
      level: 1,
      schoolName: 'Harbor View Academy',
    })),
  );
  browser = await launchBrowser();
  admin = await signInAs(browser, server.url, 'superadmin@example.org', '/dashboard');
});

afterAll(async () => {
  await admin?.context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('lists page by page', () => {
  it('a person turning 30 pages of users quickly is never refused (one request a page)', async () => {
    const { page } = admin;
    const requests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/users') requests.push(request.url());
    });
    await page.goto(`${server.url}/admin/users`);
    const pager = page.getByRole('navigation', { name: 'Pages of users' });
    await pager.getByText(/^1–25 of /).waitFor();
    const before = requests.length;
    for (let turn = 2; turn <= 31; turn++) {
      await pager.getByRole('button', { name: 'Next page', exact: true }).click();
      await pager.getByText(new RegExp(`^${(turn - 1) * 25 + 1}–${turn * 25} of `)).waitFor();
    }
    expect(requests.length - before).toBe(30);
    expect(await page.getByText('Too many requests').count()).toBe(0);
  });

  it('reaches the last plan by the pager, a typed page number and the address; out of range shows the last page', async () => {
    const { page } = admin;
    await page.goto(`${server.url}/plans`);
    const pager = page.getByRole('navigation', { name: 'Pages of plans' });
    await pager.getByText('1–50 of 123 plans').waitFor();
    expect(await page.getByRole('table').getByRole('row').count()).toBe(51);

    await pager.getByRole('button', { name: 'Last page' }).click();
    await pager.getByText('101–123 of 123 plans').waitFor();
    expect(page.url()).toContain('page=3');
    await page.getByRole('link', { name: `Paging School 121 ${YEAR}` }).waitFor();
    expect(await pager.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);

    await pager.getByLabel('Go to page').fill('2');
    await pager.getByLabel('Go to page').press('Enter');
    await pager.getByText('51–100 of 123 plans').waitFor();
    await expectAccessible(page, 'your plans, page 2 of 3');

    // A link past the end shows the last page there is.
    await page.goto(`${server.url}/plans?page=40`);
    await pager.getByText('101–123 of 123 plans').waitFor();
    expect(page.url()).toContain('page=3');
    await pager.getByRole('button', { name: 'First page' }).click();
    await pager.getByText('1–50 of 123 plans').waitFor();
    expect(admin.errors).toEqual([]);
  });
});
