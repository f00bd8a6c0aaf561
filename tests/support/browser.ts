/**
 * Real Chromium (Debian's) driven by playwright-core for the web app's tests: one browser per
 * file, one context per person, sign-in through the development identity provider's form, and
 * axe-core's WCAG 2.1 A/AA check of whatever a page shows. Each context reports what the app's
 * security policies made the browser refuse (policyProblems.ts), and each test fails on any.
 */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'vitest';
import { randomClientAddress } from '../../server/src/testing/httpClient.ts';
import { isPolicyComplaint, notePolicyProblem } from './policyProblems.ts';

/** `showScrollbars`: draw scrollbars as a desktop browser does (headless Chromium hides them by default). */
export function launchBrowser({ showScrollbars = false }: { showScrollbars?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    ...(showScrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * A new browser profile with a client address of its own (as the load balancer would report it): the
 * sign-in limit counts per address, and every test person would otherwise share 127.0.0.1.
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ ...options, extraHTTPHeaders: { 'x-forwarded-for': randomClientAddress(), ...options.extraHTTPHeaders } });
  // Every page of the profile, the identity provider's included: what the app's policies made the browser refuse.
  context.on('console', (message) => {
    if (message.type() === 'error' && isPolicyComplaint(message.text()))
      notePolicyProblem(`${message.location().url || message.page()?.url()}: ${message.text()}`);
  });
  return context;
}

export interface Person {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors the page threw: a test that ends with any fails. */
  errors: string[];
}

/** A new browser profile signed in as `email` through the sign-in form, landing on `callbackUrl`. */
export async function signInAs(
  browser: Browser,
  baseUrl: string,
  email: string,
  callbackUrl = '/plans',
  viewport = { width: 1280, height: 900 },
): Promise<Person> {
  const context = await newContext(browser, { viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${baseUrl}/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
  await page.locator('input[name="email"]').fill(email);
  await page.getByRole('button').click();
  await page.waitForURL((url) => url.pathname === callbackUrl.split('?')[0]);
  return { context, page, errors };
}

/** axe-core finds no WCAG 2.1 A/AA violation on what the page shows now. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const summary = violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
  expect(summary, `axe-core on ${what}`).toEqual([]);
}
