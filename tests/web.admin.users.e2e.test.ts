import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { currentSchoolYear } from '@csp/shared';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signIn } from '../server/src/testing/signIn.ts';
import type { HttpClient } from '../server/src/testing/httpClient.ts';
import { expectAccessible, launchBrowser, signInAs, type Person } from './support/browser.ts';
import { waitFor } from '../server/src/testing/wait.ts';
import { freshEmail } from '../server/src/testing/users.ts';

/** /admin/users in real Chromium: import, a principal's own school, bulk outcomes, filters, accessibility. */
const HARBOR = 'Harbor View Academy';
const RIVERSIDE = 'Riverside Learning Center';

let server: TestServer;
let browser: Browser;
let adminApi: HttpClient;
const people: Person[] = [];
/** The teacher the principal adds and deactivates (its history is checked later). */
let newTeacher = '';

interface ListedUser {
  _id: string;
  name: string;
  email: string;
  level: number;
  schoolName: string;
  isActive: boolean;
  permissions: Record<string, boolean>;
  assignedForms: { formId: string; permissions: string; sections: string[] }[];
}

/** The user with this e-mail as the API lists it to the Super Admin, or undefined. */
async function listedUser(email: string): Promise<ListedUser | undefined> {
  const { status, body } = await adminApi.get(`/api/users?q=${encodeURIComponent(email)}`);
  expect(status).toBe(200);
  return (body.users as ListedUser[]).find((user) => user.email === email);
}

async function openUsers(email: string, viewport?: { width: number; height: number }): Promise<Person> {
  const person = await signInAs(browser, server.url, email, '/admin/users', viewport);
  people.push(person);
  await person.page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
  await person.page.getByRole('navigation', { name: 'Pages of users' }).waitFor();
  return person;
}

/** Types a search and waits until the table shows the row of `email` (or says nothing matches). */
async function searchFor(page: Page, text: string) {
  await page.getByRole('searchbox', { name: 'Name or e-mail' }).fill(text);
  await page.getByRole('button', { name: 'Search' }).click();
}

const usersTable = (page: Page) => page.getByRole('region', { name: 'Users', exact: true });

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchBrowser();
  adminApi = await signIn(server.url, 'superadmin@example.org');
});
afterAll(async () => {
  for (const { context } of people) await context.close().catch(() => {});
  await browser?.close();
  await server?.stop();
});

describe('the Users admin page in a real browser', () => {
  it('lets a Super Admin import a CSV: preview, then the refused row and its reason, and the good rows really created', async () => {
    const admin = await openUsers('superadmin@example.org');
    const { page } = admin;
    await page.getByRole('button', { name: 'Import from CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import users from CSV' });
    await dialog.waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download the template' }).click()]);
    const template = fs.readFileSync((await download.path())!, 'utf8');
    expect(template.split('\r\n')[0]).toBe('"name","email","level","schoolName","title"');

    const good1 = freshEmail('import.one');
    const bad = freshEmail('import.bad');
    const good2 = freshEmail('import.two');
    const csv = [
      'name,email,level,schoolName,title',
      `Ada Import,${good1},1,${HARBOR},"Teacher, grade 2"`,
      `Bad Level,${bad},9,${HARBOR},`,
      `Ben Import,${good2},2,${RIVERSIDE},Coordinator`,
    ].join('\n');
    await dialog.getByLabel('CSV file').setInputFiles({ name: 'staff.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });

    const preview = dialog.getByRole('region', { name: 'Rows in the file' });
    await preview.getByRole('row', { name: new RegExp(bad) }).waitFor();
    expect(await preview.getByRole('row').count()).toBe(4); // header + 3
    await preview.getByRole('cell', { name: 'Teacher, grade 2' }).waitFor();
    await expectAccessible(page, 'the import dialog with its preview');

    await dialog.getByRole('button', { name: 'Import 3 rows' }).click();
    await dialog.getByRole('status').filter({ hasText: 'Import finished: 2 created, 0 updated, 1 refused.' }).waitFor();
    const results = dialog.getByRole('region', { name: 'Import results' });
    const refusedRow = results.getByRole('row', { name: new RegExp(bad) });
    await expect(refusedRow.getByRole('cell').first().textContent()).resolves.toBe('2');
    const reason = (await refusedRow.getByRole('cell').last().textContent())!;
    expect(reason).toMatch(/^Refused: level: /);
    await expect(
      results
        .getByRole('row', { name: new RegExp(good1) })
        .getByRole('cell')
        .last()
        .textContent(),
    ).resolves.toBe('Created');
    await expect(
      results
        .getByRole('row', { name: new RegExp(good2) })
        .getByRole('cell')
        .last()
        .textContent(),
    ).resolves.toBe('Created');
    await expectAccessible(page, 'the import results');

    // The server really created the good rows, and not the bad one.
    expect(await listedUser(good1)).toMatchObject({ name: 'Ada Import', level: 1, schoolName: HARBOR, isActive: true });
    expect(await listedUser(good2)).toMatchObject({ name: 'Ben Import', level: 2, schoolName: RIVERSIDE });
    expect(await listedUser(bad)).toBeUndefined();

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await searchFor(page, good2);
    await usersTable(page).getByText(good2, { exact: true }).waitFor();
    expect(admin.errors).toEqual([]);
  });

  it('lets a principal add a teacher and deactivate one at the own school, and shows no other school', async () => {
    const principal = await openUsers('principal.harbor@example.org');
    const { page } = principal;
    // Only the own school: no school filter, no import, and the count is the API's for this principal.
    await expect(page.getByRole('combobox', { name: 'School' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Import from CSV' }).count()).resolves.toBe(0);
    const own = await (await signIn(server.url, 'principal.harbor@example.org')).get('/api/users?limit=200');
    expect(own.body.users.every((user: ListedUser) => user.schoolName === HARBOR)).toBe(true);
    await page.getByRole('navigation', { name: 'Pages of users' }).getByText(`of ${own.body.total} users`).waitFor();
    const schools = await usersTable(page)
      .getByRole('row')
      .evaluateAll((rows) => rows.slice(1).map((row) => row.querySelectorAll('td')[3]?.textContent));
    expect(new Set(schools)).toEqual(new Set([HARBOR]));
    await searchFor(page, 'riverside');
    await usersTable(page).getByText('No users match these filters.').waitFor();

    // Add a teacher: the form offers only levels 1 to 3 and the own school.
    await page.getByRole('button', { name: 'Add user' }).click();
    const form = page.getByRole('dialog', { name: 'Add a user' });
    await form.waitFor();
    const levelOptions = await form.getByRole('combobox', { name: 'Level' }).locator('option').allTextContents();
    expect(levelOptions).toEqual(['Staff (1)', 'Coordinator (2)', 'Assistant Principal (3)']);
    await expect(form.getByRole('textbox', { name: 'School' }).inputValue()).resolves.toBe(HARBOR);
    await expect(form.getByRole('textbox', { name: 'School' }).getAttribute('readonly')).resolves.not.toBeNull();
    const teacher = freshEmail('new.teacher');
    newTeacher = teacher;
    await form.getByRole('textbox', { name: 'Name' }).fill('Nina New');
    await form.getByRole('textbox', { name: 'E-mail' }).fill(teacher);
    await form.getByRole('combobox', { name: 'Level' }).selectOption({ label: 'Staff (1)' });
    await form.getByRole('textbox', { name: /Title/ }).fill('Grade 4 teacher');
    await form.getByRole('button', { name: 'Add user' }).click();
    await form.waitFor({ state: 'hidden' });
    expect(await listedUser(teacher)).toMatchObject({ name: 'Nina New', level: 1, schoolName: HARBOR, isActive: true });

    // The server's own refusal is shown in the form.
    await page.getByRole('button', { name: 'Add user' }).click();
    await form.getByRole('textbox', { name: 'Name' }).fill('Nina Again');
    await form.getByRole('textbox', { name: 'E-mail' }).fill(teacher);
    await form.getByRole('button', { name: 'Add user' }).click();
    await form.getByRole('alert').filter({ hasText: 'User already exists' }).waitFor();
    await page.keyboard.press('Escape');
    await form.waitFor({ state: 'hidden' });

    // Deactivate the new teacher with a bulk action on the selected row.
    await searchFor(page, teacher);
    await usersTable(page).getByText(teacher, { exact: true }).waitFor();
    await page.getByRole('checkbox', { name: 'Select Nina New' }).check();
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Deactivate' });
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await page.getByRole('status').filter({ hasText: 'Deactivate: 1 of 1 applied.' }).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: `Nina New (${teacher}): done` })
      .waitFor();
    expect(await listedUser(teacher)).toMatchObject({ isActive: false });
    await usersTable(page)
      .getByRole('row', { name: /Nina New/ })
      .getByText('Deactivated')
      .waitFor();
    expect(principal.errors).toEqual([]);
  });

  it('shows each user’s outcome of a bulk action, refusals with the server’s reason, and deletes only after confirmation', async () => {
    const { page, errors } = people[1]!;
    const target = freshEmail('bulk.target');
    const created = await (
      await signIn(server.url, 'principal.harbor@example.org')
    ).post('/api/users/create', { name: 'Bo Bulk', email: target, level: 1, schoolName: HARBOR });
    expect(created.status).toBe(200);

    // The principal's own row and a teacher, levelled up: one done, one refused with the reason.
    await searchFor(page, 'principal.harbor@');
    await page.getByRole('checkbox', { name: 'Select Elena Rodriguez' }).check();
    await searchFor(page, target);
    await page.getByRole('checkbox', { name: 'Select Bo Bulk' }).check();
    await page.getByText('2 selected').waitFor();
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Level up' });
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await page.getByRole('status').filter({ hasText: 'Level up: 1 of 2 applied, 1 refused.' }).waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: `Bo Bulk (${target}): done (now Coordinator)` })
      .waitFor();
    await page
      .getByRole('listitem')
      .filter({ hasText: 'Elena Rodriguez (principal.harbor@example.org): refused, You cannot change your own account' })
      .waitFor();
    expect(await listedUser(target)).toMatchObject({ level: 2 });

    // Delete asks first; cancelling changes nothing, confirming deletes.
    await page.getByRole('button', { name: 'Clear selection' }).click();
    await page.getByRole('checkbox', { name: 'Select Bo Bulk' }).check();
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Delete' });
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 1 user?' });
    await confirm.getByText('This cannot be undone').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await listedUser(target)).toBeDefined();
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await confirm.getByRole('button', { name: 'Delete 1 user' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await page.getByRole('status').filter({ hasText: 'Delete: 1 of 1 applied.' }).waitFor();
    expect(await listedUser(target)).toBeUndefined();
    await usersTable(page).getByText('No users match these filters.').waitFor();
    expect(errors).toEqual([]);
  });

  it('filters on the server: level and never signed in, with the API’s counts', async () => {
    const { page, errors } = people[0]!;
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('combobox', { name: 'Level', exact: true }).selectOption({ label: 'Principal (4)' });
    const principals = (await adminApi.get('/api/users?level=4')).body.total;
    await page.getByRole('navigation', { name: 'Pages of users' }).getByText(`of ${principals} users`).waitFor();
    const levels = await usersTable(page)
      .getByRole('row')
      .evaluateAll((rows) => rows.slice(1).map((row) => row.querySelectorAll('td')[2]?.textContent));
    expect(new Set(levels)).toEqual(new Set(['Principal (4)']));
    // The view is in the address: a reload shows the same filtered list.
    expect(new URL(page.url()).searchParams.get('level')).toBe('4');
    await page.reload();
    await page.getByRole('navigation', { name: 'Pages of users' }).getByText(`of ${principals} users`).waitFor();
    await expect(page.getByRole('combobox', { name: 'Level', exact: true }).inputValue()).resolves.toBe('4');

    await page.getByRole('combobox', { name: 'Level', exact: true }).selectOption({ label: 'All levels' });
    await page.getByRole('combobox', { name: 'Sign-in' }).selectOption({ label: 'Never signed in' });
    const never = (await adminApi.get('/api/users?neverSignedIn=true')).body.total;
    await page.getByRole('navigation', { name: 'Pages of users' }).getByText(`of ${never} users`).waitFor();
    await searchFor(page, 'superadmin@');
    await usersTable(page).getByText('No users match these filters.').waitFor();
    await searchFor(page, 'teacher.harbor@');
    await usersTable(page).getByText('teacher.harbor@example.org', { exact: true }).waitFor();
    // Back returns to the previous view (the search for superadmin@, which matched nobody).
    await page.goBack();
    await usersTable(page).getByText('No users match these filters.').waitFor();
    await expect(page.getByRole('searchbox', { name: 'Name or e-mail' }).inputValue()).resolves.toBe('superadmin@');

    // Sorting is the server's: the header button orders the whole list, not the page.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    const firstLevel = usersTable(page).getByRole('row').nth(1).getByRole('cell').nth(2);
    await usersTable(page).getByRole('button', { name: 'Level' }).click();
    await page.waitForURL((url) => url.searchParams.get('sort') === 'level' && !url.searchParams.has('order'));
    await waitFor('the lowest level first', async () => (await firstLevel.textContent()) === 'Staff (1)');
    await usersTable(page).getByRole('button', { name: 'Level' }).click();
    await page.waitForURL((url) => url.searchParams.get('order') === 'desc');
    await waitFor('the highest level first', async () => (await firstLevel.textContent()) === 'Super Admin (5)');
    expect(errors).toEqual([]);
  });

  it('sets a user’s permissions and shares a plan with them (and stops sharing) in the Access dialog', async () => {
    const { page, errors } = people[0]!;
    const year = currentSchoolYear();
    const email = 'teacher.riverside@example.org';
    await page.goto(`${server.url}/admin/users?q=${encodeURIComponent(email)}`);
    await usersTable(page).getByText(email, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Access of Carlos Mendoza' }).click();
    const dialog = page.getByRole('dialog', { name: 'Access of Carlos Mendoza' });
    await dialog.getByRole('checkbox', { name: 'Can view plans shared with them' }).check();
    await dialog.getByRole('button', { name: 'Save permissions' }).click();
    await waitFor('the flag stored', async () => (await listedUser(email))?.permissions.canViewPlans === true);

    const plan = `${RIVERSIDE} ${year}`;
    await dialog.getByRole('combobox', { name: `Share a plan of ${RIVERSIDE}` }).selectOption({ label: `${plan} (this year)` });
    await dialog.getByRole('radio', { name: 'Edit' }).check();
    await dialog.getByRole('button', { name: 'Share plan' }).click();
    await dialog
      .getByRole('listitem')
      .filter({ hasText: `${plan} · can edit` })
      .waitFor();
    const shared = await listedUser(email);
    expect(shared?.assignedForms).toHaveLength(1);
    expect(shared?.assignedForms[0]).toMatchObject({ permissions: 'edit', sections: [] });

    await dialog.getByRole('button', { name: `Stop sharing ${plan}` }).click();
    await dialog.getByText('No plan is shared with this person.').waitFor();
    expect((await listedUser(email))?.assignedForms).toEqual([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(errors).toEqual([]);
  });

  it('shows a Super Admin a user’s history, with the bulk action that touched the user among others', async () => {
    const { page, errors } = people[0]!;
    await page.goto(`${server.url}/admin/users?q=${encodeURIComponent(newTeacher)}`);
    await usersTable(page).getByText(newTeacher, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'History of Nina New' }).click();
    const dialog = page.getByRole('dialog', { name: 'History of Nina New' });
    const changes = dialog.getByRole('region', { name: 'Changes to Nina New' });
    const bulkRow = changes.getByRole('row').filter({ hasText: 'user.bulk.deactivate' });
    await bulkRow.getByText('principal.harbor@example.org').waitFor();
    await bulkRow.getByText('isActive: true → false').waitFor();
    await changes.getByRole('row').filter({ hasText: 'user.create' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(errors).toEqual([]);
  });

  it('has no WCAG 2.1 A/AA violations on the page and its dialogs', async () => {
    const { page, errors } = people[0]!;
    await page.goto(`${server.url}/admin/users`);
    await searchFor(page, 'teacher.harbor@');
    await usersTable(page).getByText('teacher.harbor@example.org', { exact: true }).waitFor();
    await expectAccessible(page, 'the Users page');

    // Keyboard alone: a row is selected with Space, a dialog opens with Enter and closes with Escape, focus comes back.
    await page.getByRole('checkbox', { name: 'Select Samuel Okafor' }).focus();
    await page.keyboard.press('Space');
    await page.getByText('1 selected').waitFor();
    await page.keyboard.press('Space');
    await page.getByText('No users selected.').waitFor();
    await page.getByRole('button', { name: 'Add user' }).focus();
    await page.keyboard.press('Enter');
    const addDialog = page.getByRole('dialog', { name: 'Add a user' });
    await addDialog.waitFor();
    await expect(addDialog.evaluate((dialog) => dialog.contains(document.activeElement))).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await addDialog.waitFor({ state: 'hidden' });
    await expect(page.getByRole('button', { name: 'Add user' }).evaluate((button) => button === document.activeElement)).resolves.toBe(true);
    for (const [button, dialogName] of [
      ['Add user', 'Add a user'],
      ['Edit Samuel Okafor', /^Edit /],
      ['Access of Samuel Okafor', /^Access of /],
      ['History of Samuel Okafor', /^History of /],
      ['Delete Samuel Okafor', /^Delete .*\?$/],
    ] as const) {
      const opener = page.getByRole('button', { name: button });
      if ((await opener.count()) === 0) throw new Error(`no button named ${button}`);
      await opener.click();
      const dialog = page.getByRole('dialog', { name: dialogName });
      await dialog.waitFor();
      // Dialogs that only show something close with "Close", the others with "Cancel".
      const close = dialog.getByRole('button', { name: /^(Cancel|Close)$/ });
      await close.waitFor();
      await expectAccessible(page, `the dialog opened by ${button}`);
      await close.click();
      await dialog.waitFor({ state: 'hidden' });
    }
    expect(await listedUser('teacher.harbor@example.org')).toBeDefined();
    expect(errors).toEqual([]);
  });

  it('fits 320 px: nothing scrolls sideways but the table frame, also with a dialog open', async () => {
    const phone = await openUsers('superadmin@example.org', { width: 320, height: 700 });
    const { page } = phone;
    await usersTable(page).getByRole('row').nth(1).waitFor();
    await page.waitForLoadState('networkidle');
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await width()).toBeLessThanOrEqual(320);
    await expectAccessible(page, 'the Users page at 320 px');
    await page.getByRole('button', { name: 'Import from CSV' }).click();
    await page.getByRole('dialog', { name: 'Import users from CSV' }).waitFor();
    expect(await width()).toBeLessThanOrEqual(320);
    await expectAccessible(page, 'the import dialog at 320 px');
    expect(phone.errors).toEqual([]);
  });
});
