/**
 * The README's screenshots: a fresh demo server, the Harbor principal and assistant principal in
 * the same step of the same plan (presence, a shared answer, a lock), the plan overview and a
 * phone-width view, both dashboards, the public home page, each admin page, the review conversation (reviewScreenshots.ts), and history and versions (historyScreenshots.ts). Run with `pnpm --filter @csp/tests run screenshots`; writes docs/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { currentSchoolYear } from '@csp/shared';
import { startTestServer } from '../../server/src/testing/testServer.ts';
import { signIn } from '../../server/src/testing/signIn.ts';
import { launchBrowser, newContext, signInAs } from '../support/browser.ts';
import { takeHistoryScreenshots } from './historyScreenshots.ts';
import { takeReviewScreenshots } from './reviewScreenshots.ts';

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/screenshots');
fs.mkdirSync(out, { recursive: true });

const server = await startTestServer();
const browser = await launchBrowser();
try {
  const api = await signIn(server.url, 'principal.harbor@example.org');
  const forms = (await api.get(`/api/forms?schoolYear=${currentSchoolYear()}`)).body.forms as { _id: string; schoolName: string }[];
  const formId = forms.find((form) => form.schoolName === 'Harbor View Academy')!._id;
  const stepNumber = BUNDLED_BANK.steps.findIndex((step) => step.key === 'attendancePlan') + 1;
  const step = BUNDLED_BANK.steps[stepNumber - 1]!;
  const textarea = step.questions.find((question) => question.type === 'textarea')!;
  const text = step.questions.find((question) => question.type === 'text')!;
  const stepUrl = `/plans/${formId}/step/${stepNumber}`;

  const principal = await signInAs(browser, server.url, 'principal.harbor@example.org', stepUrl, { width: 1280, height: 860 });
  const ap = await signInAs(browser, server.url, 'ap.harbor@example.org', stepUrl, { width: 1280, height: 860 });
  for (const { page } of [principal, ap])
    await page
      .getByRole('status')
      .filter({ hasText: /All changes saved/ })
      .first()
      .waitFor();
  await principal.page.getByRole('textbox', { name: text.title }).fill('Rahim Uddin, Attendance Teacher');
  // Stored first, so the principal's edit takes the step's lock.
  await principal.page
    .getByRole('status')
    .filter({ hasText: /Saved at/ })
    .first()
    .waitFor();
  await ap.page.getByRole('textbox', { name: textarea.title }).click();
  await ap.page.keyboard.type('Families told us mornings are hard, and buses arrive late in winter.', { delay: 5 });
  await principal.page
    .getByRole('status')
    .filter({ hasText: /Saved at/ })
    .first()
    .waitFor();
  await principal.page.getByText('Marcus Bell').first().waitFor();
  await principal.page.getByRole('textbox', { name: textarea.title }).scrollIntoViewIfNeeded();
  await principal.page.waitForTimeout(500);
  await principal.page.screenshot({ path: path.join(out, 'editor-principal.png') });
  await ap.page.getByRole('textbox', { name: text.title }).focus();
  await ap.page.waitForTimeout(300);
  await ap.page.screenshot({ path: path.join(out, 'editor-assistant-principal.png') });

  await ap.page.goto(`${server.url}/plans/${formId}`);
  await ap.page.getByText('Being edited by Elena Rodriguez').waitFor();
  await ap.page.screenshot({ path: path.join(out, 'plan-overview.png'), fullPage: true });

  await principal.page.goto(`${server.url}/dashboard`);
  await principal.page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  await principal.page
    .getByText(/Marcus Bell · /)
    .first()
    .waitFor();
  await principal.page.screenshot({ path: path.join(out, 'dashboard-principal.png'), fullPage: true });

  const admin = await signInAs(browser, server.url, 'superadmin@example.org', '/dashboard', { width: 1280, height: 860 });
  await admin.page.getByRole('table', { name: /Plans by status/ }).waitFor();
  await admin.page.waitForTimeout(500);
  await admin.page.screenshot({ path: path.join(out, 'dashboard-superadmin.png'), fullPage: true });

  // The admin area, one page each, as a Super Admin sees it.
  const adminPages: [string, string, RegExp][] = [
    ['/admin/plans', 'admin-plans.png', /Actions for Harbor View Academy/],
    ['/admin/users', 'admin-users.png', /Select Elena Rodriguez|Elena Rodriguez/],
    ['/admin/school-years', 'admin-school-years.png', /Roll over/],
    ['/admin/question-bank', 'admin-question-bank.png', /Add a question/],
    ['/admin/audit-log', 'admin-audit-log.png', /Apply filters/],
    ['/admin/system', 'admin-system.png', /Refresh/],
  ];
  for (const [adminPath, file, ready] of adminPages) {
    await admin.page.goto(`${server.url}${adminPath}`);
    await admin.page.getByRole('button', { name: ready }).first().waitFor();
    await admin.page.waitForTimeout(400);
    await admin.page.screenshot({ path: path.join(out, file), fullPage: true });
  }

  const visitor = await newContext(browser, { viewport: { width: 1280, height: 860 } });
  const home = await visitor.newPage();
  await home.goto(server.url);
  await home.getByRole('figure', { name: /This year's progress/ }).waitFor();
  await home.waitForTimeout(500);
  await home.screenshot({ path: path.join(out, 'home.png'), fullPage: true });

  // The API reference, its top (the whole page holds every operation).
  const reference = await visitor.newPage();
  await reference.goto(`${server.url}/api/docs`);
  await reference.getByRole('heading', { level: 1 }).waitFor();
  await reference.screenshot({ path: path.join(out, 'api-docs.png') });

  const phone = await signInAs(browser, server.url, 'principal.harbor@example.org', stepUrl, { width: 360, height: 780 });
  await phone.page.getByRole('heading', { level: 1 }).waitFor();
  await phone.page
    .getByRole('status')
    .filter({ hasText: /All changes saved/ })
    .first()
    .waitFor();
  await phone.page.screenshot({ path: path.join(out, 'editor-phone.png') });
  await takeReviewScreenshots(server, browser, out);
  // Last: it submits the Harbor plan.
  await takeHistoryScreenshots(server.url, browser, out);
  console.log(`screenshots written to ${path.relative(process.cwd(), out)}`);
} finally {
  await browser.close();
  await server.stop();
}
