import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear, nextSchoolYear, type Question, type QuestionBank, type Step } from '@csp/shared';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';
import { waitFor } from '../server/src/testing/wait.ts';

/**
 * The question-bank page in real Chromium, by role and accessible name: a Super Admin edits the
 * draft (a question's title and required flag, a new question, the order by keyboard and by drag,
 * a deactivation), previews the step, reads the diff and publishes pinned to a year, which the API
 * then serves with the same question ids; discarding; the server's refusal shown as it says it;
 * axe-core on the page, its editor and dialogs; 320 px wide.
 */
const PAGE = '/admin/question-bank';
const ADMIN_BANK = '/api/admin/question-bank';
const NEXT = nextSchoolYear(currentSchoolYear());
const V1 = BUNDLED_BANK.version;
const STEP_INDEX = BUNDLED_BANK.steps.findIndex((step) => step.key === 'respectForAll');
const STEP = BUNDLED_BANK.steps[STEP_INDEX]!;
const STEP_LABEL = `${STEP_INDEX + 1}. ${STEP.title}`;
const EDITED = STEP.questions.find((question) => question.type === 'text' && question.required)!;
const DEACTIVATED = STEP.questions.find((question) => question.id !== EDITED.id && question.active !== false)!;
const NEW_TITLE = 'Who leads the Respect for All team this year?';
const EDITED_TITLE = 'Name the Respect for All liaison for this year';

let server: TestServer;
let browser: Browser;
let adminApi: HttpClient;
const people: Person[] = [];

interface AdminView {
  published: QuestionBank | null;
  draft: QuestionBank | null;
  versions: { version: number; status: string; schoolYear: string | null }[];
}
const adminView = async (): Promise<AdminView> => {
  const { status, body } = await adminApi.get<AdminView>(ADMIN_BANK);
  expect(status).toBe(200);
  return body;
};
const stepOf = (bank: { steps: Step[] } | null, key = STEP.key): Step => bank!.steps.find((step) => step.key === key)!;
const idsOf = (bank: { steps: Step[] }) => bank.steps.flatMap((step) => step.questions.map((question) => question.id));

async function openAsAdmin(viewport?: { width: number; height: number }): Promise<Person> {
  const admin = await signInAs(browser, server.url, 'superadmin@example.org', PAGE, viewport);
  people.push(admin);
  await admin.page.getByRole('heading', { level: 1, name: 'Question bank' }).waitFor();
  await admin.page.getByRole('heading', { level: 2, name: /^(Draft version \d+|No draft)$/ }).waitFor();
  return admin;
}

const chooseStep = (page: Page) => page.getByRole('combobox', { name: 'Step' }).selectOption({ label: STEP_LABEL });
const questionList = (page: Page) => page.getByRole('list', { name: `Questions of ${STEP.title}` });
const listedTitles = async (page: Page) =>
  (await questionList(page).getByRole('listitem').locator('.bank-question__title').allTextContents()).map((text) => text.trim());

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  [adminApi] = await signInAll(server.url, ['superadmin@example.org'] as const);
});
afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the question bank page in a real browser', () => {
  it('is for Super Admins only: a principal is refused', async () => {
    const principal = await signInAs(browser, server.url, 'principal.harbor@example.org', PAGE);
    people.push(principal);
    await principal.page.getByRole('heading', { level: 1, name: 'Not available to you' }).waitFor();
    await expect(principal.page.getByRole('heading', { name: 'Question bank' }).count()).resolves.toBe(0);
    expect(principal.errors).toEqual([]);
  });

  it('edits a question, adds one, reorders by keyboard and by drag, deactivates, previews, shows the diff and publishes pinned to a year', async () => {
    const admin = await openAsAdmin();
    const { page } = admin;
    await page.getByRole('heading', { level: 2, name: 'No draft' }).waitFor();
    await page
      .getByRole('region', { name: 'Question bank versions' })
      .getByRole('row', { name: /Version 1 Published/ })
      .waitFor();
    await chooseStep(page);
    await page.getByRole('heading', { level: 3, name: `Step ${STEP_INDEX + 1}: ${STEP.title}` }).waitFor();
    await expectAccessible(page, 'the question bank page');

    // Edit the title and the required flag.
    await page.getByRole('button', { name: `Edit question ${EDITED.number}` }).click();
    const editor = page.getByRole('dialog', { name: `Edit question ${EDITED.number}` });
    await editor.waitFor();
    await expect(editor.getByRole('textbox', { name: 'Question title' }).inputValue()).resolves.toBe(EDITED.title);
    await expectAccessible(page, 'the question editor');
    await editor.getByRole('textbox', { name: 'Question title' }).fill(EDITED_TITLE);
    await editor.getByRole('checkbox', { name: /^Required/ }).uncheck();
    await editor.getByRole('button', { name: 'Save question' }).click();
    await editor.waitFor({ state: 'detached' });
    await questionList(page).getByText(EDITED_TITLE).waitFor();
    await page.getByRole('heading', { level: 2, name: `Draft version ${V1 + 1}` }).waitFor();
    const afterEdit = await adminView();
    const edited = stepOf(afterEdit.draft).questions.find((question) => question.id === EDITED.id)!;
    expect(edited).toMatchObject({ title: EDITED_TITLE, required: false, number: EDITED.number, type: EDITED.type });
    expect(afterEdit.published!.version).toBe(V1);

    // An empty title is refused in the form, nothing is sent.
    await page.getByRole('button', { name: `Edit question ${EDITED.number}` }).click();
    await editor.getByRole('textbox', { name: 'Question title' }).fill('');
    await editor.getByRole('button', { name: 'Save question' }).click();
    await editor.getByRole('alert').getByText('Give the question a title.').waitFor();
    await page.keyboard.press('Escape');
    await editor.waitFor({ state: 'detached' });

    // Add a question at the end of the step.
    await page.getByRole('button', { name: 'Add a question' }).click();
    const adder = page.getByRole('dialog', { name: `Add a question to ${STEP.title}` });
    await adder.getByRole('textbox', { name: 'Number' }).fill('4z');
    await adder.getByRole('textbox', { name: 'Question title' }).fill(NEW_TITLE);
    await adder.getByRole('combobox', { name: 'Answer type' }).selectOption({ label: 'Yes / No' });
    await adder.getByRole('checkbox', { name: /^Required/ }).check();
    await adder.getByRole('checkbox', { name: /^Gate: hide the rest of the step/ }).check();
    await adder.getByRole('button', { name: 'Add question' }).click();
    await adder.waitFor({ state: 'detached' });
    await questionList(page).getByText(NEW_TITLE).waitFor();
    const count = STEP.questions.length + 1;
    expect((await listedTitles(page)).at(-1)).toBe(`4z. ${NEW_TITLE}`);
    await waitFor('focus on the new question', () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') === 'Edit question 4z'));
    const newId = await waitFor(
      'the new question in the draft',
      async () => stepOf((await adminView()).draft).questions.find((q) => q.title === NEW_TITLE)?.id,
    );
    expect(newId).toMatch(/^q_[0-9a-f]{12}$/);

    // Reorder with the keyboard alone: focus stays on Move up, and each move is announced.
    await page.getByRole('button', { name: 'Move up: question 4z' }).focus();
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: `Moved 4z. ${NEW_TITLE} to position ${count - 1} of ${count}.` })
      .waitFor({ state: 'attached' });
    await expect(page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).resolves.toBe('Move up: question 4z');
    await page.keyboard.press('Space');
    await page
      .getByRole('status')
      .filter({ hasText: `to position ${count - 2} of ${count}.` })
      .waitFor({ state: 'attached' });
    await waitFor('the keyboard order saved', async () => stepOf((await adminView()).draft).questions.findIndex((q) => q.id === newId) === count - 3);
    expect((await listedTitles(page))[count - 3]).toBe(`4z. ${NEW_TITLE}`);

    // Drag the first question below the second.
    const first = STEP.questions[0]!;
    const second = STEP.questions[1]!;
    const items = questionList(page).getByRole('listitem');
    await items.nth(0).dragTo(items.nth(1));
    await waitFor('the dragged order saved', async () => {
      const ids = stepOf((await adminView()).draft).questions.map((q) => q.id);
      return ids[0] === second.id && ids[1] === first.id;
    });
    const titleOf = (question: Question) => `${question.number}. ${question.id === EDITED.id ? EDITED_TITLE : question.title}`;
    expect((await listedTitles(page)).slice(0, 2)).toEqual([titleOf(second), titleOf(first)]);

    // Deactivate one question: it stays in the list, marked.
    await page.getByRole('button', { name: `Deactivate question ${DEACTIVATED.number}` }).click();
    await page.getByRole('button', { name: `Reactivate question ${DEACTIVATED.number}` }).waitFor();
    await questionList(page).getByRole('listitem').filter({ hasText: DEACTIVATED.title }).getByText('Deactivated').waitFor();

    // Preview: the step as the editor shows it, with the edited title and no Required mark on it.
    await page.getByRole('button', { name: 'Preview step' }).click();
    const preview = page.getByRole('dialog', { name: `Preview: ${STEP.title}` });
    await preview.waitFor();
    const editedField = preview.getByRole('textbox', { name: `${EDITED.number}. ${EDITED_TITLE}`, exact: true });
    await editedField.waitFor();
    await preview.getByRole('radiogroup', { name: `4z. ${NEW_TITLE} Required` }).waitFor();
    await expect(preview.getByText(DEACTIVATED.title, { exact: true }).count()).resolves.toBe(0);
    // The new gate hides the questions after it until answered yes, as in the plan editor.
    const afterGate = STEP.questions.at(-2)!;
    await preview.getByText(/^2 more questions appear only after the answers above/).waitFor();
    await expect(preview.getByText(afterGate.title).count()).resolves.toBe(0);
    await preview
      .getByRole('radiogroup', { name: `4z. ${NEW_TITLE} Required` })
      .getByRole('radio', { name: 'Yes' })
      .check();
    await preview.getByText(afterGate.title).waitFor();
    await expectAccessible(page, 'the step preview');
    await page.keyboard.press('Escape');
    await preview.waitFor({ state: 'detached' });

    // The diff before publishing, then publish pinned to next year.
    await page.getByRole('button', { name: 'Review changes and publish…' }).click();
    const publish = page.getByRole('dialog', { name: `Publish draft version ${V1 + 1}` });
    await publish.waitFor();
    // The innermost item: the question's own entry inside its step's.
    const changed = publish
      .getByRole('listitem')
      .filter({ hasText: `Changed ${EDITED.number}. ${EDITED_TITLE}` })
      .last();
    await changed.getByText(`Published: ${EDITED.title}`).waitFor();
    await changed.getByText(`Draft: ${EDITED_TITLE}`).waitFor();
    await changed.getByText('Required').waitFor();
    await publish
      .getByRole('listitem')
      .filter({ hasText: `Added 4z. ${NEW_TITLE}` })
      .last()
      .waitFor();
    await publish
      .getByRole('listitem')
      .filter({ hasText: `Deactivated ${DEACTIVATED.number}. ${DEACTIVATED.title}` })
      .last()
      .waitFor();
    await publish.getByText('Questions reordered').waitFor();
    await expectAccessible(page, 'the publish dialog with the diff');
    await publish.getByRole('combobox', { name: 'Pin to school year' }).selectOption(NEXT);
    await publish.getByRole('button', { name: `Publish version ${V1 + 1}` }).click();
    await publish.waitFor({ state: 'detached' });
    await page.getByRole('heading', { level: 2, name: `Draft version ${V1 + 2}` }).waitFor();
    await waitFor('focus on the new state', () => page.evaluate(() => document.activeElement?.id === 'bank-status-heading'));
    await page.getByText(`No changes yet against published version ${V1 + 1}.`, { exact: false }).waitFor();
    await page
      .getByRole('region', { name: 'Question bank versions' })
      .getByRole('row', { name: new RegExp(`Version ${V1 + 1} Published ${NEXT}`) })
      .waitFor();

    // The API serves the new version: the changes, the same ids plus the new one, pinned to the year.
    const after = await adminView();
    expect(after.versions.map((v) => [v.version, v.status, v.schoolYear])).toEqual([
      [V1, 'archived', null],
      [V1 + 1, 'published', NEXT],
      [V1 + 2, 'draft', null],
    ]);
    const served = (await adminApi.get<QuestionBank>(`/api/question-bank?version=${V1 + 1}`)).body;
    expect(idsOf(served).sort()).toEqual([...idsOf(BUNDLED_BANK), newId].sort());
    const servedStep = stepOf(served);
    expect(servedStep.questions.find((q) => q.id === EDITED.id)).toEqual({ ...EDITED, title: EDITED_TITLE, required: false } satisfies Question);
    expect(servedStep.questions.find((q) => q.id === newId)).toEqual({
      id: newId,
      number: '4z',
      title: NEW_TITLE,
      type: 'yesno',
      required: true,
      gatesFollowing: true,
    });
    expect(servedStep.questions.find((q) => q.id === DEACTIVATED.id)).toEqual({ ...DEACTIVATED, active: false });
    expect(servedStep.questions.map((q) => q.id).slice(0, 2)).toEqual([second.id, first.id]);
    expect(servedStep.questions.findIndex((q) => q.id === newId)).toBe(count - 3);
    expect((await adminApi.get(`/api/school-year?schoolYear=${NEXT}`)).body.questionBankVersion).toBe(V1 + 1);

    // The archived version still reads as it was.
    await page.getByRole('button', { name: `View questions of version ${V1}` }).click();
    const archived = page.getByRole('dialog', { name: `Version ${V1}` });
    await archived.getByText(new RegExp(`^${STEP.title} \\(${STEP.questions.length} questions\\)$`)).click();
    await archived.getByText(`${EDITED.number}. ${EDITED.title}`).waitFor();
    await expect(archived.getByText(NEW_TITLE).count()).resolves.toBe(0);
    await expectAccessible(page, 'an archived version');
    await archived.getByRole('button', { name: 'Close' }).click();
    await archived.waitFor({ state: 'detached' });
    expect(admin.errors).toEqual([]);
  });

  it('shows the server’s refusal in its own words, and discards the draft after a confirmation', async () => {
    const admin = await openAsAdmin();
    const { page } = admin;
    // A step key the bank already has: the server's 409 text, in the dialog.
    await page.getByRole('button', { name: 'Add a step' }).click();
    const addStep = page.getByRole('dialog', { name: 'Add a step' });
    await addStep.getByRole('textbox', { name: 'Title' }).fill('Respect again');
    await addStep.getByRole('textbox', { name: 'Key' }).fill(STEP.key);
    await addStep.getByRole('button', { name: 'Add step' }).click();
    await addStep.getByRole('alert').getByText(`Step ${STEP.key} already exists`).waitFor();
    await expectAccessible(page, 'the add-step dialog with an error');
    await page.keyboard.press('Escape');
    await addStep.waitFor({ state: 'detached' });

    // Change a step's introduction, then discard.
    await chooseStep(page);
    await page.getByText('Step title and introduction').click();
    await page.getByRole('textbox', { name: 'Introduction' }).fill('A short introduction that will be discarded.');
    await page.getByRole('button', { name: 'Save step' }).click();
    await waitFor('the introduction in the draft', async () => stepOf((await adminView()).draft).intro.startsWith('A short introduction'));
    await page.getByText(/^1 change against published version/).waitFor();

    await page.getByRole('button', { name: 'Discard the draft…' }).click();
    const confirm = page.getByRole('dialog', { name: `Discard draft version ${V1 + 2}?` });
    await confirm.getByText('1 change will be lost.').waitFor();
    await expectAccessible(page, 'the discard confirmation');
    // Cancel keeps it.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await adminView()).draft).not.toBeNull();
    await page.getByRole('button', { name: 'Discard the draft…' }).click();
    await confirm.getByRole('button', { name: 'Discard the draft' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('heading', { level: 2, name: 'No draft' }).waitFor();
    await waitFor('focus on the new state', () => page.evaluate(() => document.activeElement?.id === 'bank-status-heading'));
    const after = await adminView();
    expect(after.draft).toBeNull();
    expect(after.published!.version).toBe(V1 + 1);
    expect(stepOf(after.published).intro).toBe(STEP.intro);
    expect(admin.errors).toEqual([]);
  });

  it('fits 320 px: nothing scrolls sideways but table frames, with the editor and the diff open, and passes axe-core', async () => {
    const phone = await openAsAdmin({ width: 320, height: 700 });
    const { page } = phone;
    const fits = async (what: string) => {
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${what} is ${width} px wide`).toBeLessThanOrEqual(320);
    };
    await chooseStep(page);
    await questionList(page).getByRole('listitem').first().waitFor();
    await fits('the page');
    await expectAccessible(page, 'the page at 320 px');

    await page.getByRole('button', { name: `Edit question ${EDITED.number}` }).click();
    const editor = page.getByRole('dialog', { name: `Edit question ${EDITED.number}` });
    await editor.getByRole('combobox', { name: 'Answer type' }).selectOption({ label: 'Table' });
    await editor.getByRole('textbox', { name: 'Column 1 header' }).fill('Name');
    await editor.getByRole('combobox', { name: 'Column 1 type' }).selectOption({ label: 'Drop-down' });
    await editor.getByRole('textbox', { name: 'Column 1 choices, separated by commas' }).fill('Teacher, Counselor');
    await fits('the question editor');
    await expectAccessible(page, 'the question editor at 320 px');
    await editor.getByRole('button', { name: 'Save question' }).click();
    await editor.waitFor({ state: 'detached' });
    await questionList(page).getByRole('listitem').filter({ hasText: EDITED_TITLE }).getByText('Table').waitFor();

    await page.getByRole('button', { name: 'Show changes' }).click();
    const changes = page.getByRole('dialog', { name: `Changes in draft version ${V1 + 2}` });
    await changes.getByText('Draft: Name (choose from Teacher, Counselor)').waitFor();
    await fits('the diff');
    await expectAccessible(page, 'the diff at 320 px');
    await page.keyboard.press('Escape');

    await page.getByRole('button', { name: 'Preview step' }).click();
    const preview = page.getByRole('dialog', { name: `Preview: ${STEP.title}` });
    await preview.getByRole('table', { name: new RegExp(EDITED_TITLE) }).waitFor();
    await fits('the preview');
    await expectAccessible(page, 'the preview at 320 px');
    expect(phone.errors).toEqual([]);
  });
});
