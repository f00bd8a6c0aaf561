import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, type Question } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { launchBrowser, signInAs, type Person } from './support/browser.ts';

/**
 * Who is where, as co-editors see it, in real Chromium on the real server: presence and
 * "Being edited by" that tell the truth when people move, close the tab or lose the network.
 * The server counts a silent realtime connection gone after 2 s here (20 s by default).
 */
const HARBOR = 'Harbor View Academy';
const PRINCIPAL = 'principal.harbor@example.org';
const AP = 'ap.harbor@example.org';

const stepNumberOf = (key: string) => BUNDLED_BANK.steps.findIndex((step) => step.key === key) + 1;
const stepOf = (key: string) => BUNDLED_BANK.steps.find((step) => step.key === key)!;
const firstOfType = (key: string, type: Question['type']) => stepOf(key).questions.find((question) => question.type === type && !question.visibleWhen)!;

let server: TestServer;
let browser: Browser;
let principalApi: HttpClient;
let formId: string;
const people: Person[] = [];

async function person(email: string, callbackUrl: string): Promise<Person> {
  const signedIn = await signInAs(browser, server.url, email, callbackUrl);
  people.push(signedIn);
  return signedIn;
}

const field = (page: Page, question: Question) => page.getByRole('textbox', { name: question.title });

/** Types into a step's first text answer and waits until the step says it is saved. */
async function writeOn(page: Page, stepKey: string, text: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: stepOf(stepKey).title }).waitFor();
  await field(page, firstOfType(stepKey, 'text')).fill(text);
  await page
    .getByRole('status')
    .filter({ hasText: /Saved at/ })
    .first()
    .waitFor();
}

/** The steps the page's step list shows as being edited, by whom. */
async function beingEdited(page: Page): Promise<string[]> {
  const items = page.getByRole('navigation', { name: 'Plan steps' }).getByRole('listitem');
  const shown: string[] = [];
  for (const item of await items.all()) {
    const badge = item.getByText(/^Being edited by /);
    if (await badge.count()) shown.push(`${await item.getByRole('link').innerText()}: ${await badge.innerText()}`);
  }
  return shown;
}

const presenceOf = (page: Page) => page.getByRole('region', { name: 'People in this plan now' });

beforeAll(async () => {
  server = await startTestServer({ REALTIME_TIMEOUT_SECONDS: '2' });
  browser = await launchBrowser();
  [principalApi] = await signInAll(server.url, [PRINCIPAL] as const);
  const list = await principalApi.get(`/api/forms?schoolYear=${currentSchoolYear()}`);
  formId = list.body.forms.find((form: { schoolName: string }) => form.schoolName === HARBOR)._id;
});

afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('presence and "being edited" in a real browser', () => {
  it('a step is "being edited" only by someone on it: the notice follows them from step to step, and goes when they close the tab or lose the network', async () => {
    const attendance = stepNumberOf('attendancePlan');
    const counseling = stepNumberOf('counselingPlan');
    const elena = await person(PRINCIPAL, `/plans/${formId}/step/${attendance}`);
    const marcus = await person(AP, `/plans/${formId}`);
    const expectEdited = (what: string, expected: string[]) =>
      waitFor(what, async () => JSON.stringify(await beingEdited(marcus.page)) === JSON.stringify(expected)).catch(async (error: Error) => {
        throw new Error(`${error.message}; the step list shows ${JSON.stringify(await beingEdited(marcus.page))}`);
      });

    // Elena fills in one step, then opens the next by its address (a full page load, as a bookmark or a script does).
    await writeOn(elena.page, 'attendancePlan', 'Rahim Uddin');
    await expectEdited('Elena editing the attendance step', [`${stepOf('attendancePlan').title}: Being edited by Elena Rodriguez`]);
    await elena.page.goto(`${server.url}/plans/${formId}/step/${counseling}`);
    await writeOn(elena.page, 'counselingPlan', 'Every student has a trusted adult');
    await expectEdited('the notice moved with her to the counseling step', [`${stepOf('counselingPlan').title}: Being edited by Elena Rodriguez`]);
    await presenceOf(marcus.page).getByText(`Elena Rodriguez · Step ${counseling}`).waitFor();
    // Then she moves on within the app without writing: no step is being edited.
    await elena.page
      .getByRole('navigation', { name: 'Plan steps' })
      .getByRole('link', { name: stepOf('temporaryHousing').title, exact: true })
      .click();
    await presenceOf(marcus.page)
      .getByText(`Elena Rodriguez · Step ${stepNumberOf('temporaryHousing')}`)
      .waitFor();
    await expectEdited('no notice once she left the step she wrote on', []);

    // She writes again and closes the tab: her presence and the notice go.
    await writeOn(elena.page, 'temporaryHousing', 'Ms. Chen');
    await expectEdited('Elena editing the housing step', [`${stepOf('temporaryHousing').title}: Being edited by Elena Rodriguez`]);
    await elena.page.close();
    await expectEdited('the notice gone with the closed tab', []);
    await presenceOf(marcus.page).getByText('1 person on this plan').waitFor();

    // Back, writing, and then her network drops without a word: gone once the server's timeout passes.
    elena.page = await elena.context.newPage();
    await elena.page.goto(`${server.url}/plans/${formId}/step/${counseling}`);
    await writeOn(elena.page, 'counselingPlan', 'Every student has two trusted adults');
    await expectEdited('Elena editing the counseling step again', [`${stepOf('counselingPlan').title}: Being edited by Elena Rodriguez`]);
    await elena.context.setOffline(true);
    await expectEdited('the notice gone with the dropped network', []);
    await presenceOf(marcus.page).getByText('1 person on this plan').waitFor();
    // When her network is back she is on the plan again.
    await elena.context.setOffline(false);
    await presenceOf(marcus.page).getByText(`Elena Rodriguez · Step ${counseling}`).waitFor();
    expect([...elena.errors, ...marcus.errors]).toEqual([]);
  });
});
