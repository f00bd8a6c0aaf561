/**
 * The plan's record in its exports, on a real server and database: the demo Harbor plan of this
 * year, answered with the demo district's sample answers, attested and submitted by its principal
 * and approved by the Super Admin through the API, then
 * exported with `loadPlanExport` and read back (the PDF with poppler, the DOCX as XML). Also the
 * footer (school and year, "Page n of N", no plan id), the steps flowing on from one another, a
 * return for changes, and a past version's answers printed in place of the current ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { currentSchoolYear } from '@csp/shared';
import { plans } from '../storage/schema.ts';
import { startTestServer, type TestServer } from '../testing/testServer.ts';
import { signIn } from '../testing/signIn.ts';
import type { HttpClient } from '../testing/httpClient.ts';
import { planContextFor } from '../testing/fullPlan.ts';
import { sampleStepAnswers } from '../seed/sampleAnswers.ts';
import { readPdf, unzipDocx, wordText } from '../testing/exportChecks.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../testing/demoNames.ts';
import { formatDate, loadPlanExport, type PlanExport } from './planExport.ts';
import { renderPlanPdf } from './pdf.ts';
import { renderPlanDocx } from './docx.ts';

const YEAR = currentSchoolYear();
/** The demo district's names for its Harbor principal and its Super Admin (seed/demoDistrict.ts). */
const PRINCIPAL_NAME = 'Elena Rodriguez';
const ADMIN_NAME = 'Dana Whitfield';
const FOOTER = `${HARBOR} · ${YEAR} Consolidated School Plan`;

let server: TestServer;
let principal: HttpClient;
let admin: HttpClient;
let formId: string;

const exportAs = async (email: string, options?: Parameters<typeof loadPlanExport>[2]) =>
  loadPlanExport(server.services, await planContextFor(server.services, email, formId), options);
const planRow = async () => (await server.services.storage.db.select().from(plans).where(eq(plans.id, formId)))[0]!;

async function put(client: HttpClient, body: Record<string, unknown>) {
  const response = await client.put(`/api/forms/${formId}`, body);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

beforeAll(async () => {
  server = await startTestServer();
  principal = await signIn(server.url, PRINCIPAL_HARBOR);
  admin = await signIn(server.url, SUPERADMIN);
  const list = await principal.get(`/api/forms?schoolYear=${YEAR}`);
  formId = (list.body.forms as { _id: string; schoolName: string }[]).find((form) => form.schoolName === HARBOR)!._id;
  const bank = await server.services.banks.resolve((await planRow()).questionBankVersion);
  for (const [index, step] of bank.steps.entries()) {
    const data = sampleStepAnswers(step, HARBOR);
    const saved = await principal.put(`/api/forms/${formId}/step/${index + 1}`, { stepData: { data, completed: true }, mergeStrategy: 'last-write-wins' });
    expect(saved.status, JSON.stringify(saved.body).slice(0, 300)).toBe(200);
  }
  const attested = await principal.post(`/api/forms/${formId}/attest`, { name: PRINCIPAL_NAME });
  expect(attested.status, JSON.stringify(attested.body)).toBe(200);
  await put(principal, { action: 'submit' });
  await put(admin, { action: 'review', status: 'under_review' });
  await put(admin, { action: 'review', status: 'approved' });
});
afterAll(() => server?.stop());

describe('an approved plan', () => {
  let plan: PlanExport;
  let pdf: ReturnType<typeof readPdf>;
  let pages: string[];
  let row: Awaited<ReturnType<typeof planRow>>;

  beforeAll(async () => {
    plan = await exportAs(PRINCIPAL_HARBOR);
    pdf = readPdf(await renderPlanPdf(plan));
    pages = pdf.text.split('\f').slice(0, pdf.pages);
    row = await planRow();
  });

  it('prints its record in the PDF: status, attestation, submission and approval, who and when', () => {
    const text = pdf.text;
    expect(text).toContain('Status: Approved');
    expect(text).toContain(`Attested by ${PRINCIPAL_NAME} on ${formatDate(new Date(row.attestation!.signedAt!))}`);
    // Who submitted comes from the audit log: the plan keeps only when.
    expect(text).toContain(`Submitted by ${PRINCIPAL_NAME} on ${formatDate(row.submittedAt)}`);
    expect(text).toContain(`Approved by ${ADMIN_NAME} on ${formatDate(row.reviewedAt)}`);
    // On the first page, before the contents.
    expect(pages[0]!.indexOf('Approved by')).toBeLessThan(pages[0]!.indexOf('Contents'));
  });

  it('has a footer with the school, the year and "Page n of N" on every page, and no plan id anywhere', () => {
    expect(pdf.pages).toBeGreaterThan(1);
    for (const [i, page] of pages.entries()) {
      expect(page, `page ${i + 1}`).toContain(FOOTER);
      expect(page, `page ${i + 1}`).toContain(`Page ${i + 1} of ${pdf.pages}`);
    }
    expect(pdf.text).not.toMatch(/[0-9a-f]{24}/);
    expect(pdf.text).not.toContain(formId);
  });

  it('lets steps share pages: step 1 (one checkbox) is followed on its page; no page ends with a heading or a question before its answer', () => {
    const linesOf = (page: string) =>
      page
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.includes(FOOTER) && !/^Page \d+ of \d+$/.test(line));
    const first = pages.findIndex((page) => linesOf(page).includes(plan.steps[0]!.heading));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(pages[first]).toContain(plan.steps[0]!.questions[0]!.label);
    expect(linesOf(pages[first]!)).toContain(plan.steps[1]!.heading);
    // A question whose answer is blank (a drawn line, no text) may end a page.
    const kept = new Set(plan.steps.flatMap((step) => [step.heading, ...step.questions.filter((q) => q.answer.kind !== 'blank').map((q) => q.label)]));
    for (const [i, page] of pages.entries()) expect(kept.has(linesOf(page).at(-1)!), `page ${i + 1} ends with "${linesOf(page).at(-1)}"`).toBe(false);
  });

  it('prints the same record and footer in the DOCX', async () => {
    const xml = unzipDocx(await renderPlanDocx(plan));
    const text = wordText(xml['word/document.xml']!);
    expect(text).toContain('Status: Approved');
    expect(text).toContain(`Attested by ${PRINCIPAL_NAME} on ${formatDate(new Date(row.attestation!.signedAt!))}`);
    expect(text).toContain(`Submitted by ${PRINCIPAL_NAME} on ${formatDate(row.submittedAt)}`);
    expect(text).toContain(`Approved by ${ADMIN_NAME} on ${formatDate(row.reviewedAt)}`);
    // Steps follow on (kept with their next paragraph), no forced page breaks.
    expect(xml['word/document.xml']).not.toContain('<w:pageBreakBefore/>');
    const footer = xml['word/footer1.xml']!;
    expect(wordText(footer)).toContain(FOOTER);
    expect(footer).toMatch(/PAGE[\s\S]*NUMPAGES/);
    expect(Object.values(xml).join('')).not.toContain(formId);
  });
});

describe('a plan returned for changes', () => {
  it('prints who returned it, when and why', async () => {
    await put(admin, { action: 'review', status: 'rejected', comment: 'Name the attendance team.' });
    const plan = await exportAs(SUPERADMIN);
    const row = await planRow();
    const text = wordText(unzipDocx(await renderPlanDocx(plan))['word/document.xml']!);
    expect(text).toContain('Status: Returned for changes');
    expect(text).toContain(`Returned for changes by ${ADMIN_NAME} on ${formatDate(row.reviewedAt)}`);
    expect(text).toContain('Reason: Name the attendance team.');
    expect(text).not.toContain('Approved by');
  });
});

describe('a past version', () => {
  it('prints the answers given instead of the current ones, with its label under the title', async () => {
    const label = 'Version: Submitted on May 15, 2026';
    const plan = await exportAs(PRINCIPAL_HARBOR, {
      version: { label, steps: { tableOfContents: { data: { toc_principalReviewed: true }, completed: true } } },
    });
    const pdf = readPdf(await renderPlanPdf(plan));
    const firstPage = pdf.text.split('\f')[0]!;
    expect(firstPage.indexOf(label)).toBeGreaterThan(firstPage.indexOf(HARBOR));
    expect(firstPage.indexOf(label)).toBeLessThan(firstPage.indexOf('Record'));
    expect(plan.steps[0]!.completed).toBe(true);
    expect(plan.steps[0]!.questions[0]!.answer).toEqual({ kind: 'text', text: 'Yes' });
    expect(wordText(unzipDocx(await renderPlanDocx(plan))['word/document.xml']!)).toContain(label);
  });
});
