import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { currentSchoolYear } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { plans } from '../server/src/storage/schema.ts';
import { newId } from '../server/src/storage/ids.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';

/**
 * "Your plans" at more than a page: every plan is reachable, by the pager's buttons and by typing a
 * page number, and the address keeps the page (a reload or a link shows the same one).
 */
const YEAR = currentSchoolYear();
/** With the demo district's two plans of the year: 123 plans, three pages of 50. */
const EXTRA_PLANS = 121;

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
  browser = await launchBrowser();
  admin = await signInAs(browser, server.url, 'superadmin@example.org', '/plans');
});

afterAll(async () => {
  await admin?.context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('your plans, page by page', () => {
  it('reaches the last plan by the pager, a typed page number and the address; out of range shows the last page', async () => {
    const { page } = admin;
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
