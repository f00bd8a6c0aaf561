import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { expectAccessible, launchBrowser } from './support/browser.ts';

/**
 * The built web app in Debian's Chromium against a real server: the public overview, then sign-in
 * through the development identity provider's form, the way a principal does it.
 */
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('web app in a real browser', () => {
  it('shows the district overview on the home page without signing in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByText('Schools served').waitFor();
    const overview = (await (await fetch(`${server.url}/api/public/overview`)).json()) as { schoolsServed: number; currentYearPlans: number };
    const figures = await page.locator('.figure').allInnerTexts();
    expect(figures.join(' ')).toContain(String(overview.schoolsServed));
    expect(figures.join(' ')).toMatch(/Plans for \d{4}-\d{4}/);
    await expectAccessible(page, 'the home page');
    await context.close();
  });

  it('signs a principal in through the identity provider and lists the school’s plans', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByRole('link', { name: 'Sign in' }).first().click();
    await page.locator('input[name="email"]').fill('principal.harbor@example.org');
    await page.getByRole('button').click();
    await page.waitForURL(/\/plans$/);
    await page.getByText('Harbor View Academy').first().waitFor();
    const rows = await page.locator('table tbody tr').allInnerTexts();
    expect(rows.some((row) => row.includes('Harbor View Academy'))).toBe(true);
    expect(rows.some((row) => row.includes('Riverside'))).toBe(false);
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.name === 'csp.session-token')?.httpOnly).toBe(true);
    await context.close();
  });

  it('brings a refused sign-in back to the login page with a reason a person can act on', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/api/auth/signin?callbackUrl=/plans`);
    await page.locator('input[name="email"]').fill('inactive.harbor@example.org');
    await page.getByRole('button').click();
    await page.waitForURL(/\/login\?error=inactive/);
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(/turned off/);
    await expectAccessible(page, 'the login page with a refusal');
    await context.close();
  });
});
