import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { expectAccessible, launchBrowser, newContext } from './support/browser.ts';

/**
 * The API reference page (/api/docs) in real Chromium, signed out: it asks nothing of any other
 * server, its contents link to each operation, and axe-core finds no WCAG 2.1 A/AA violation, folded
 * schemas and unfolded ones.
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

describe('the API reference page', () => {
  it('shows every operation from this server alone, links to each, and passes axe-core', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${server.url}/api/docs`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Consolidated School Plan API');
    const { paths } = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, object> };
    const operations = Object.values(paths).reduce<number>((count, item) => count + Object.keys(item).length, 0);
    expect(await page.locator('section.operation').count()).toBe(operations);

    await page.getByRole('link', { name: 'PUT /api/forms/{id}/step/{stepNumber}' }).click();
    expect(new URL(page.url()).hash).toBe('#put-api-forms-id-step-stepnumber');
    // The browser scrolled the operation's heading to the top.
    expect(await page.locator('#put-api-forms-id-step-stepnumber').evaluate((heading) => heading.getBoundingClientRect().top)).toBeLessThan(5);

    // Every schema is rendered alike: one operation's, unfolded, stands for all (axe over all of them takes long).
    await page.evaluate(() =>
      document
        .querySelectorAll('[aria-labelledby="put-api-forms-id-step-stepnumber"] details')
        .forEach((details) => ((details as HTMLDetailsElement).open = true)),
    );
    await expectAccessible(page, 'the API reference, a step save’s schemas unfolded');

    expect(requested.filter((url) => new URL(url).origin !== server.url)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
