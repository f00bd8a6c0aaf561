import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { expectAccessible, launchBrowser, newContext } from './support/browser.ts';
import { takePolicyProblems } from './support/policyProblems.ts';

/**
 * The built web app in Debian's Chromium against a real server: the public overview, then sign-in
 * through the development identity provider's form, the way a principal does it; and the API
 * reference page, signed out: it asks nothing of any other server, its contents link to each
 * operation, and axe-core finds no WCAG 2.1 A/AA violation.
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
  it('shows the district overview on the home page without signing in: figures, a chart told in words, the yearly path', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(server.url);
    const overview = (await (await fetch(`${server.url}/api/public/overview`)).json()) as {
      currentYear: string;
      schoolsServed: number;
      sectionCount: number;
      currentYearPlans: number;
      startedThisYear: number;
      submittedThisYear: number;
    };
    await page.getByRole('heading', { name: 'District overview' }).waitFor();
    const figures = page.locator('dl');
    await figures.getByText('Schools served').waitFor();
    const pairs = await figures
      .locator('div')
      .evaluateAll((nodes) => nodes.map((node) => [node.querySelector('dt')!.textContent, node.querySelector('dd')!.textContent]));
    expect(Object.fromEntries(pairs)).toEqual({
      'Schools served': String(overview.schoolsServed),
      'Plan sections': String(overview.sectionCount),
      [`Plans for ${overview.currentYear}`]: String(overview.currentYearPlans),
      'Submitted this year': String(overview.submittedThisYear),
    });
    // The chart is a picture of figures given in words beside it; screen readers get the words.
    await expect(page.getByRole('figure', { name: /This year's progress/ }).isVisible()).resolves.toBe(true);
    await expect(
      page.getByText(`${overview.startedThisYear} of ${overview.schoolsServed} schools have started their ${overview.currentYear} plan`).isVisible(),
    ).resolves.toBe(true);
    await expect(page.getByRole('heading', { name: "This year's path" }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Sign in' }).first().isVisible()).resolves.toBe(true);
    await expectAccessible(page, 'the home page');
    await page.setViewportSize({ width: 320, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await expectAccessible(page, 'the home page at 320 px');
    await context.close();
  });

  it('signs a principal in through the identity provider and lists the school’s plans', async () => {
    const context = await newContext(browser);
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
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(`${server.url}/api/auth/signin?callbackUrl=/plans`);
    await page.locator('input[name="email"]').fill('inactive.harbor@example.org');
    await page.getByRole('button').click();
    await page.waitForURL(/\/login\?error=inactive/);
    await expect(page.getByRole('alert').innerText()).resolves.toMatch(/turned off/);
    await expectAccessible(page, 'the login page with a refusal');
    // Every refusal reason the server gives reads as words a person can act on.
    const reasons: Record<string, RegExp> = {
      domain: /district e-mail address/,
      unknown: /no account for that e-mail address/,
      inactive: /turned off/,
      'rate-limited': /Too many sign-in attempts.*Wait a minute/,
    };
    // Rate limited for real: a network that started 20 sign-ins this minute is sent back with the reason.
    const crowded = await newContext(browser, { extraHTTPHeaders: { 'x-forwarded-for': '192.0.2.77' } });
    for (let i = 0; i < 20; i++) await crowded.request.get(`${server.url}/api/auth/signin?callbackUrl=/plans`, { maxRedirects: 0 });
    const crowdedPage = await crowded.newPage();
    await crowdedPage.goto(`${server.url}/api/auth/signin?callbackUrl=/plans`);
    await crowdedPage.waitForURL(/\/login\?error=rate-limited/);
    await expect(crowdedPage.getByRole('alert').innerText()).resolves.toMatch(reasons['rate-limited']!);
    await expectAccessible(crowdedPage, 'the login page, rate limited');
    await crowded.close();
    for (const [reason, words] of Object.entries(reasons)) {
      await page.goto(`${server.url}/login?error=${reason}`);
      await expect(page.getByRole('alert').innerText(), reason).resolves.toMatch(words);
      await expect(page.getByRole('link', { name: 'Sign in' }).first().isVisible()).resolves.toBe(true);
    }
    await context.close();
  });
});

describe('the security policy in the browser', () => {
  it('runs the app with only its own scripts: an injected inline script is refused, and the browser reports it', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByRole('heading', { name: 'District overview' }).waitFor();
    const refusal = await page.evaluate(
      () =>
        new Promise<{ directive: string; ran: boolean }>((resolve) => {
          document.addEventListener('securitypolicyviolation', (event) => resolve({ directive: event.effectiveDirective, ran: 'injectedRan' in window }), {
            once: true,
          });
          const injected = document.createElement('script');
          injected.textContent = 'window.injectedRan = true';
          document.body.append(injected);
        }),
    );
    expect(refusal.directive).toMatch(/^script-src/);
    expect(refusal.ran).toBe(false);
    await context.close();
    // What the console said about this refusal is this test's own doing, not a failure.
    takePolicyProblems();
  });

  it('cannot be framed by a page of another origin, while that origin frames its own pages', async () => {
    const context = await newContext(browser);
    // A site elsewhere, served by the browser's own request routing.
    await context.route('http://elsewhere.test/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body:
          new URL(route.request().url()).pathname === '/own'
            ? '<!doctype html><title>Own</title><h1>Its own page</h1>'
            : `<!doctype html><title>Framing</title><iframe title="own" src="/own"></iframe><iframe title="app" src="${server.url}/login"></iframe>`,
      }),
    );
    const page = await context.newPage();
    await page.goto('http://elsewhere.test/');
    await page.frameLocator('iframe[title="own"]').getByRole('heading', { name: 'Its own page' }).waitFor();
    // The browser put its error page in the app's frame: nothing of the app is there.
    await expect.poll(() => page.frames().map((frame) => frame.url())).toContain('chrome-error://chromewebdata/');
    expect(page.frames().some((frame) => frame.url().includes(new URL(server.url).host))).toBe(false);
    expect(await page.frameLocator('iframe[title="app"]').getByRole('link', { name: 'Sign in' }).count()).toBe(0);
    await context.close();
  });
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
