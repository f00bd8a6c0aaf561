import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, type TableAnswer } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { pause, waitFor } from '../server/src/testing/wait.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';

/**
 * Two people on one step of the demo plan in real Chromium, in the cases that lost or garbled
 * words before: a colleague back from a long absence, undo and redo, composed input (an IME, a dead
 * key) beside a colleague's typing, a row removed while a colleague types in the next one, and
 * where the colleague's caret is. The server counts a silent realtime connection gone after 2 s
 * here (20 s by default), so an absence of a few seconds crosses every timeout it has.
 */
const HARBOR = 'Harbor View Academy';
const PRINCIPAL = 'principal.harbor@example.org';
const AP = 'ap.harbor@example.org';
const STEP = BUNDLED_BANK.steps.findIndex((step) => step.key === 'attendancePlan') + 1;
const questions = BUNDLED_BANK.steps[STEP - 1]!.questions;
const titleOf = (id: string) => questions.find((question) => question.id === id)!.title;
const BARRIERS = titleOf('att_barriers');
const STRATEGY = titleOf('att_strategy');
const COORDINATOR = titleOf('att_coordinatorName');
const ROLES = 'att_roles';

let server: TestServer;
let browser: Browser;
let principalApi: HttpClient;
let formId: string;
let elena: Person;
let marcus: Person;

const field = (page: Page, title: string) => page.getByRole('textbox', { name: title });
const stored = async (questionId: string) => (await principalApi.get(`/api/forms/${formId}/step/${STEP}`)).body.stepData.data[questionId];
const saved = (page: Page) =>
  page
    .getByRole('status')
    .filter({ hasText: /Saved at/ })
    .first()
    .waitFor();

/** Puts the caret at the end of a field's text and types there, key by key. */
async function typeAtEnd(target: Locator, text: string): Promise<void> {
  await target.click();
  await target.press('Control+End');
  await target.pressSequentially(text);
}

async function bothShow(title: string, check: (value: string) => boolean, what: string): Promise<string> {
  let value = '';
  await waitFor(what, async () => {
    const [a, b] = await Promise.all([field(elena.page, title).inputValue(), field(marcus.page, title).inputValue()]);
    value = a;
    return a === b && check(a);
  });
  return value;
}

beforeAll(async () => {
  server = await startTestServer({ REALTIME_TIMEOUT_SECONDS: '2' });
  browser = await launchBrowser();
  [principalApi] = await signInAll(server.url, [PRINCIPAL] as const);
  const list = await principalApi.get(`/api/forms?schoolYear=${currentSchoolYear()}`);
  formId = list.body.forms.find((form: { schoolName: string }) => form.schoolName === HARBOR)._id;
  elena = await signInAs(browser, server.url, PRINCIPAL, `/plans/${formId}/step/${STEP}`);
  marcus = await signInAs(browser, server.url, AP, `/plans/${formId}/step/${STEP}`);
  for (const { page } of [elena, marcus]) await field(page, BARRIERS).waitFor();
});

afterAll(async () => {
  for (const person of [elena, marcus]) await person?.context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('two people on one step in a real browser', () => {
  it('a person back from a long absence never deletes what a colleague typed meanwhile, on any screen or in the record', async () => {
    await field(elena.page, BARRIERS).fill('Base2.');
    await bothShow(BARRIERS, (value) => value === 'Base2.', 'both to show the base text');

    await elena.context.setOffline(true);
    await elena.page
      .getByRole('status')
      .filter({ hasText: /Offline/ })
      .first()
      .waitFor();
    await typeAtEnd(field(elena.page, BARRIERS), ' ElenaOffline.');
    await typeAtEnd(field(marcus.page, BARRIERS), ' MarcusOnline.');
    await saved(marcus.page);
    // Longer than every timeout the server has for a silent connection here.
    await pause(6_000);
    await elena.context.setOffline(false);

    const merged = await bothShow(BARRIERS, (value) => value.includes('ElenaOffline.') && value.includes('MarcusOnline.'), 'both sentences on both screens');
    expect(merged).toMatch(/^Base2\. (MarcusOnline\. ElenaOffline\.|ElenaOffline\. MarcusOnline\.)$/);
    await waitFor('the record to hold both sentences', async () => (await stored('att_barriers')) === merged);
    expect(elena.errors).toEqual([]);
  });

  it('undo and redo take back and bring back only my own typing, never a colleague’s, never twice', async () => {
    const strategy = field(elena.page, STRATEGY);
    await strategy.fill('');
    await bothShow(STRATEGY, (value) => value === '', 'an empty answer on both screens');
    await typeAtEnd(strategy, 'Alpha one.');
    await bothShow(STRATEGY, (value) => value === 'Alpha one.', 'Elena’s first sentence');
    await typeAtEnd(field(marcus.page, STRATEGY), ' Bravo two.');
    await bothShow(STRATEGY, (value) => value === 'Alpha one. Bravo two.', 'Marcus’s sentence');
    // A pause ends an undo step, as in Google Docs.
    await pause(1_000);
    await typeAtEnd(strategy, ' Alpha three.');
    await bothShow(STRATEGY, (value) => value === 'Alpha one. Bravo two. Alpha three.', 'Elena’s second sentence');

    await strategy.press('Control+z');
    await bothShow(STRATEGY, (value) => value === 'Alpha one. Bravo two.', 'the first undo to take back “Alpha three.”');
    await strategy.press('Control+z');
    await bothShow(STRATEGY, (value) => value === ' Bravo two.', 'the second undo to take back “Alpha one.”');
    await strategy.press('Control+z');
    await pause(300);
    expect(await strategy.inputValue(), 'nothing of Marcus’s is undone by Elena').toBe(' Bravo two.');

    await strategy.press('Control+Shift+z');
    await strategy.press('Control+y');
    await bothShow(STRATEGY, (value) => value === 'Alpha one. Bravo two. Alpha three.', 'redo to bring both back, once each');

    // Marcus's undo is his own.
    await field(marcus.page, STRATEGY).press('Control+z');
    await bothShow(STRATEGY, (value) => value === 'Alpha one. Alpha three.', 'Marcus’s undo to take back only his sentence');
    await saved(elena.page);
    await waitFor('the record to follow', async () => (await stored('att_strategy')) === 'Alpha one. Alpha three.');
  });

  it('composed input (a Chinese IME, a Spanish dead key) is stored once, without its intermediate text, beside a colleague’s typing', async () => {
    const coordinator = field(elena.page, COORDINATOR);
    await coordinator.fill('Lee ');
    await bothShow(COORDINATOR, (value) => value === 'Lee ', 'the base text');
    await coordinator.click();
    await coordinator.press('End');
    await field(marcus.page, COORDINATOR).click();
    await field(marcus.page, COORDINATOR).press('End');

    const ime = await elena.context.newCDPSession(elena.page);
    const compose = (text: string) => ime.send('Input.imeSetComposition', { text, selectionStart: text.length, selectionEnd: text.length });
    await compose('n');
    await field(marcus.page, COORDINATOR).pressSequentially('12');
    await compose('ni');
    await field(marcus.page, COORDINATOR).pressSequentially('34');
    await pause(300);
    await ime.send('Input.insertText', { text: '你' });
    await compose('´');
    await field(marcus.page, COORDINATOR).pressSequentially('56');
    await ime.send('Input.insertText', { text: 'é' });

    const value = await bothShow(
      COORDINATOR,
      (text) => text.includes('你') && text.includes('é') && text.includes('56'),
      'both people’s input on both screens',
    );
    expect(value.startsWith('Lee ')).toBe(true);
    expect(value.replace(/\d/g, ''), 'the composed text once, with nothing of its intermediate text').toBe('Lee 你é');
    expect(value.replace(/[^\d]/g, ''), 'Marcus’s digits, in order').toBe('123456');
    await saved(elena.page);
    await waitFor('the record to hold it as shown', async () => (await stored('att_coordinatorName')) === value);
  });

  it('a row removed by one person does not move the row a colleague is typing in; the removal can be undone', async () => {
    const table = (page: Page) => page.getByRole('group', { name: new RegExp(titleOf(ROLES).slice(0, 20)) });
    const firstNames = (page: Page) => table(page).getByRole('textbox', { name: /^First Name, row \d+$/ });
    // Two rows to start from.
    while ((await firstNames(elena.page).count()) > 0) await table(elena.page).getByRole('button', { name: 'Remove row 1' }).click();
    await table(elena.page)
      .getByRole('button', { name: /Add row/ })
      .click();
    await waitFor('focus in the new row', async () => (await elena.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === 'Role, row 1');
    await table(elena.page)
      .getByRole('button', { name: /Add row/ })
      .click();
    await table(elena.page).getByRole('textbox', { name: 'First Name, row 1' }).fill('Ana');
    await table(elena.page).getByRole('textbox', { name: 'First Name, row 2' }).fill('Ben');
    await waitFor('Marcus to see both rows', async () => (await firstNames(marcus.page).count()) === 2);

    const bens = table(marcus.page).getByRole('textbox', { name: 'First Name, row 2' });
    await waitFor('Ben on Marcus’s screen', async () => (await bens.inputValue()) === 'Ben');
    await typeAtEnd(bens, ' Dean');
    await table(elena.page).getByRole('button', { name: 'Remove row 1' }).click();
    await waitFor('the removal on Marcus’s screen', async () => (await firstNames(marcus.page).count()) === 1);
    // Marcus keeps typing where he was: the same field, now row 1.
    await marcus.page.keyboard.type(' of students');
    const focused = await marcus.page.evaluate(() => [document.activeElement?.getAttribute('aria-label'), (document.activeElement as HTMLInputElement).value]);
    expect(focused).toEqual(['First Name, row 1', 'Ben Dean of students']);
    await waitFor(
      'Elena to see it',
      async () => (await table(elena.page).getByRole('textbox', { name: 'First Name, row 1' }).inputValue()) === 'Ben Dean of students',
    );

    // The removal is announced, with a way back.
    await elena.page.getByRole('button', { name: 'Undo' }).last().click();
    await waitFor('the removed row back on both screens', async () => {
      const [a, b] = await Promise.all([firstNames(elena.page).allInnerTexts(), firstNames(marcus.page).count()]);
      return a.length === 2 && b === 2;
    });
    await waitFor('the record to hold both rows', async () => {
      const rows = ((await stored(ROLES)) as TableAnswer | undefined)?.rows ?? [];
      return rows.length === 2 && rows[0]![1] === 'Ana' && rows[1]![1] === 'Ben Dean of students';
    });

    // Two people typing in one cell: each one's letters stay together.
    const cellOf = (page: Page) => table(page).getByRole('textbox', { name: 'Last Name, row 1' });
    await cellOf(elena.page).click();
    await cellOf(marcus.page).click();
    await Promise.all([cellOf(elena.page).pressSequentially('aaaa'), cellOf(marcus.page).pressSequentially('bbbb')]);
    const cell = await waitFor('one cell on both screens', async () => {
      const [a, b] = await Promise.all([cellOf(elena.page).inputValue(), cellOf(marcus.page).inputValue()]);
      return a === b && a.length === 8 ? a : null;
    });
    expect(['aaaabbbb', 'bbbbaaaa']).toContain(cell);
  });

  it('shows where a colleague’s caret and selection are, with their name, and tells a screen reader once', async () => {
    const barriers = field(elena.page, BARRIERS);
    await barriers.click();
    await barriers.press('Control+Home');
    await barriers.press('Shift+End');
    const caret = marcus.page.locator('.remote-caret__name', { hasText: 'Elena Rodriguez' });
    await caret.waitFor();
    await marcus.page.locator('.remote-carets__selection').first().waitFor();
    await marcus.page.getByText(/Elena Rodriguez is in question 6g/).waitFor({ state: 'attached' });
    // The caret follows the text: Marcus types before it, and it stays after Elena's selection.
    const before = await caret.boundingBox();
    await field(marcus.page, BARRIERS).click();
    await field(marcus.page, BARRIERS).press('Control+Home');
    await field(marcus.page, BARRIERS).pressSequentially('Moved. ');
    await waitFor('the caret to move right', async () => ((await caret.boundingBox())?.x ?? 0) > (before?.x ?? 0));
    await expectAccessible(marcus.page, 'the step editor with a colleague’s caret shown');
    expect([...elena.errors, ...marcus.errors]).toEqual([]);
  });

  it('a laptop closed overnight with an unsent edit: next morning it merges beside what a colleague wrote meanwhile, after the server let the document go', async () => {
    const coordinator = field(elena.page, COORDINATOR);
    await coordinator.fill('Ms Lee');
    await bothShow(COORDINATOR, (value) => value === 'Ms Lee', 'the base text on both screens');
    await saved(elena.page);
    await elena.context.setOffline(true);
    await elena.page
      .getByRole('status')
      .filter({ hasText: /Offline/ })
      .first()
      .waitFor();
    await typeAtEnd(coordinator, ' (dean)');
    await elena.page.getByRole('status').filter({ hasText: 'Offline: your changes are kept and will merge when you are back' }).first().waitFor();
    // The lid closes: the tab is gone, and the edit is only in this browser's IndexedDB.
    await elena.page.close();
    await typeAtEnd(field(marcus.page, COORDINATOR), ', attendance');
    await saved(marcus.page);
    // Marcus goes home too: nobody is on the step, so the server stores its document and lets it go.
    await marcus.page.goto(`${server.url}/plans/${formId}`);
    await waitFor('the server to unload the step document', () => server.services.liveServers.collaboration().documents === 0);

    await elena.context.setOffline(false);
    elena.page = await elena.context.newPage();
    await elena.page.goto(`${server.url}/plans/${formId}/step/${STEP}`);
    const merged = await waitFor('the record to hold both edits', async () => {
      const value = String((await stored('att_coordinatorName')) ?? '');
      return value.includes('(dean)') && value.includes(', attendance') ? value : null;
    });
    expect(merged).toMatch(/^Ms Lee(, attendance \(dean\)| \(dean\), attendance)$/);
    await waitFor('Elena’s screen to show the merged text', async () => (await field(elena.page, COORDINATOR).inputValue()) === merged);
  });
});
