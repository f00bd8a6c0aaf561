import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, type Question } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';

/**
 * The step editor's ergonomics in real Chromium: every step of the list can be reached, the second
 * skip link lands in the first question's field, a phone shows the first question on its first
 * screen, table answers fit their box (or scroll with a scrollbar drawn), and read-only answers look
 * read-only. Everything found by role and accessible name; axe-core on each page.
 */
const HARBOR = 'Harbor View Academy';
const PRINCIPAL = 'principal.harbor@example.org';
const COORDINATOR = 'coordinator.harbor@example.org';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 360, height: 740 };

const steps = BUNDLED_BANK.steps;
const numberOf = (key: string) => steps.findIndex((step) => step.key === key) + 1;
const question = (key: string, number: string): Question => steps[numberOf(key) - 1]!.questions.find((candidate) => candidate.number === number)!;

const RESPECT = numberOf('respectForAll'); // 4a: a five-column table
const SUICIDE = numberOf('suicidePrevention'); // 5e: an eight-column table
const ATTENDANCE = numberOf('attendancePlan'); // 6a: a line of text
const LIAISONS = question('respectForAll', '4a');
const RESPONDERS = question('suicidePrevention', '5e');
const COORDINATOR_NAME = question('attendancePlan', '6a');

let server: TestServer;
let browser: Browser;
let formId: string;
const people: Person[] = [];

async function open(email: string, stepNumber: number, viewport = DESKTOP): Promise<Page> {
  const person = await signInAs(browser, server.url, email, `/plans/${formId}/step/${stepNumber}`, viewport);
  people.push(person);
  await person.page.getByRole('heading', { level: 1, name: steps[stepNumber - 1]!.title }).waitFor();
  await person.page
    .getByRole('status')
    .filter({ hasText: /All changes saved|Saved at|View only/ })
    .first()
    .waitFor();
  return person.page;
}

const stepList = (page: Page) => page.getByRole('navigation', { name: 'Plan steps' });
const stepLink = (page: Page, stepNumber: number) => stepList(page).getByRole('link', { name: steps[stepNumber - 1]!.title, exact: true });
const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim());
const isFocused = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);

/** Where `inner` sits relative to the part of `frame` the window shows (negative: cut off on that side). */
async function insideVisibleFrame(frame: Locator, inner: Locator): Promise<boolean> {
  const [outer, box, viewport] = [await frame.boundingBox(), await inner.boundingBox(), frame.page().viewportSize()!];
  if (!outer || !box) return false;
  const visible = { top: Math.max(outer.y, 0), bottom: Math.min(outer.y + outer.height, viewport.height), left: outer.x, right: outer.x + outer.width };
  return box.y >= visible.top - 1 && box.y + box.height <= visible.bottom + 1 && box.x >= visible.left - 1 && box.x + box.width <= visible.right + 1;
}

/** A frame that scrolls in `axis` draws a scrollbar that takes room (not one hidden until used): its box less its borders and its inside. */
const drawsScrollbar = (frame: Locator, axis: 'x' | 'y') =>
  frame.evaluate((element: HTMLElement, which) => {
    const style = getComputedStyle(element);
    const borders =
      which === 'x'
        ? parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth)
        : parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth);
    return (which === 'x' ? element.offsetHeight - element.clientHeight : element.offsetWidth - element.clientWidth) - borders > 0;
  }, axis);

async function addRow(page: Page, table: Question, values: string[]): Promise<void> {
  const region = page.getByRole('region', { name: table.title });
  const row = (await region.getByRole('button', { name: /^Remove row \d+$/ }).count()) + 1;
  await page.getByRole('button', { name: `Add row to question ${table.number}` }).click();
  const textColumns = table.columns!.filter((column) => column.type === 'text');
  for (const [index, column] of textColumns.entries())
    if (values[index]) await region.getByRole('textbox', { name: `${column.header}, row ${row}` }).fill(values[index]);
}

beforeAll(async () => {
  server = await startTestServer();
  // Scrollbars drawn as on a desktop, so the test can see whether a frame shows one.
  browser = await launchBrowser({ showScrollbars: true });
  const [principalApi] = await signInAll(server.url, [PRINCIPAL] as const);
  const list = await principalApi.get(`/api/forms?schoolYear=${currentSchoolYear()}`);
  formId = list.body.forms.find((form: { schoolName: string }) => form.schoolName === HARBOR)._id;
});

afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the step editor’s ergonomics in a real browser', () => {
  it('the step list beside the questions reaches all 14 steps: it scrolls with a scrollbar drawn, the current step in view', async () => {
    const page = await open(PRINCIPAL, 12);
    const frame = page.getByRole('complementary').filter({ has: stepList(page) });
    expect(await stepList(page).getByRole('link').count()).toBe(steps.length);
    await expect(insideVisibleFrame(frame, stepLink(page, 12))).resolves.toBe(true);
    // At 1280×900 the 14 steps are taller than the window: the list scrolls, its scrollbar drawn.
    await expect(frame.evaluate((element) => element.scrollHeight > element.clientHeight)).resolves.toBe(true);
    await expect(drawsScrollbar(frame, 'y')).resolves.toBe(true);

    // The keyboard reaches step 14 in the list, and the list shows it when it has focus.
    const last = stepLink(page, steps.length);
    for (let presses = 0; presses < 60 && !(await isFocused(last)); presses++) await page.keyboard.press('Tab');
    await expect(isFocused(last)).resolves.toBe(true);
    await expect(insideVisibleFrame(frame, last)).resolves.toBe(true);
    await expectAccessible(page, 'step 12 with its list scrolled');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: steps.at(-1)!.title }).waitFor();
    await expect(insideVisibleFrame(frame, stepLink(page, steps.length))).resolves.toBe(true);
  });

  it('the second skip link brings focus to the first question’s field; other pages keep “Skip to main content”', async () => {
    const page = await open(PRINCIPAL, ATTENDANCE);
    await page.keyboard.press('Tab');
    await expect(focusedName(page)).resolves.toBe('Skip to main content');
    await page.keyboard.press('Tab');
    await expect(focusedName(page)).resolves.toBe('Skip to the first question');
    await expectAccessible(page, 'the step page with its skip link showing');
    await page.keyboard.press('Enter');
    await expect(isFocused(page.getByRole('textbox', { name: COORDINATOR_NAME.title }))).resolves.toBe(true);

    // A table first: its first cell.
    await stepLink(page, RESPECT).click();
    await page.getByRole('heading', { level: 1, name: steps[RESPECT - 1]!.title }).waitFor();
    await addRow(page, LIAISONS, ['Ana']);
    await page.getByRole('link', { name: 'Skip to the first question' }).focus();
    await page.keyboard.press('Enter');
    await expect(isFocused(page.getByRole('region', { name: LIAISONS.title }).getByRole('textbox', { name: 'First Name, row 1' }))).resolves.toBe(true);

    // Elsewhere the one skip link goes to the main content, as before.
    await page.goto(`${server.url}/plans`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await page.getByRole('link', { name: 'Skip to the first question' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Skip to main content' }).focus();
    await page.keyboard.press('Enter');
    await expect(isFocused(page.getByRole('main'))).resolves.toBe(true);
  });

  it('on a 360 px phone the first question starts on the first screen; the steps fold into a disclosure that opens', async () => {
    const page = await open(PRINCIPAL, ATTENDANCE, PHONE);
    const first = page.getByRole('group', { name: COORDINATOR_NAME.title });
    const box = await first.boundingBox();
    expect(box!.y).toBeLessThan(600);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(page, 'the step page on a phone');

    const disclosure = page.getByText(/^All steps \(\d+ of 14 complete\)$/);
    await expect(stepLink(page, steps.length).isVisible()).resolves.toBe(false);
    await disclosure.click();
    await stepLink(page, steps.length).scrollIntoViewIfNeeded();
    await expect(stepLink(page, steps.length).isVisible()).resolves.toBe(true);
    await expectAccessible(page, 'the step list open on a phone');
  });

  it('a five-column table fits its box with Remove in sight; one that cannot fit scrolls in a named region with its scrollbar drawn', async () => {
    const page = await open(PRINCIPAL, RESPECT);
    const region = page.getByRole('region', { name: LIAISONS.title });
    if ((await region.getByRole('button', { name: 'Remove row 1' }).count()) === 0)
      await addRow(page, LIAISONS, ['Ana', 'Lopez', 'Dean', 'ana.lopez@harbor.example.org', '555-0100']);
    await expect(region.evaluate((element) => element.scrollWidth <= element.clientWidth)).resolves.toBe(true);
    await expect(insideVisibleFrame(region, region.getByRole('textbox', { name: 'Telephone, row 1' }))).resolves.toBe(true);
    await expect(insideVisibleFrame(region, region.getByRole('button', { name: 'Remove row 1' }))).resolves.toBe(true);
    await expectAccessible(page, 'a five-column table');

    await stepLink(page, SUICIDE).click();
    await page.getByRole('heading', { level: 1, name: steps[SUICIDE - 1]!.title }).waitFor();
    const wide = page.getByRole('region', { name: RESPONDERS.title });
    await addRow(page, RESPONDERS, ['Sam', 'Okafor', 'Counselor', 'sam.okafor@harbor.example.org', '555-0101', '210', '8:00', '9:00']);
    const remove = wide.getByRole('button', { name: 'Remove row 1' });
    // Eight columns do not fit beside the step list: the region scrolls to Remove, a named tab stop with its scrollbar drawn.
    await expect(wide.evaluate((element) => element.scrollWidth > element.clientWidth)).resolves.toBe(true);
    await expect(wide.getAttribute('tabindex')).resolves.toBe('0');
    await expect(drawsScrollbar(wide, 'x')).resolves.toBe(true);
    await page.getByText('Scroll sideways to see every column.').first().waitFor();
    await remove.focus();
    await expect(insideVisibleFrame(wide, remove)).resolves.toBe(true);
    await expectAccessible(page, 'an eight-column table');

    // On a phone the five columns scroll in their named, focusable region, said in words too.
    const phone = await open(PRINCIPAL, RESPECT, PHONE);
    const small = phone.getByRole('region', { name: LIAISONS.title });
    await expect(small.evaluate((element) => element.scrollWidth > element.clientWidth)).resolves.toBe(true);
    await expect(small.getAttribute('tabindex')).resolves.toBe('0');
    await expect(drawsScrollbar(small, 'x')).resolves.toBe(true);
    await phone.getByText('Scroll sideways to see every column.').first().waitFor();
    await expectAccessible(phone, 'a five-column table on a phone');
  });

  it('read-only answers look read-only: another background than an editable field, and no axe violation', async () => {
    const editable = await open(PRINCIPAL, ATTENDANCE);
    const background = (page: Page) =>
      page.getByRole('textbox', { name: COORDINATOR_NAME.title }).evaluate((element) => getComputedStyle(element).backgroundColor);
    const editableBackground = await background(editable);

    const page = await open(COORDINATOR, ATTENDANCE);
    await page.getByText('You can read this step but not change it.').waitFor();
    const field = page.getByRole('textbox', { name: COORDINATOR_NAME.title });
    await expect(field.getAttribute('readonly')).resolves.not.toBeNull();
    await expect(background(page)).resolves.not.toBe(editableBackground);
    await field.focus();
    await expect(field.evaluate((element) => getComputedStyle(element).boxShadow)).resolves.toBe('none');
    await expectAccessible(page, 'a view-only step');
  });
});
