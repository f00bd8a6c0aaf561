/**
 * Plan exports (GET /api/forms/:id/export/pdf and /docx) of a fully answered plan, filled through
 * the API by its principal: every question type, a 40-row table, a 12-column table, a
 * 20,000-character answer with line breaks, answers in Spanish, Chinese, Bengali and Arabic, blank
 * questions and gated-off questions holding answers. The files are read for real: the PDF with
 * poppler (pdfinfo, pdffonts, pdftotext), the DOCX by unzipping its XML and by converting it with
 * headless LibreOffice. Also access (401/403/404), section-limited shares, headers and the export
 * rate limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { currentSchoolYear, type QuestionBank } from '@csp/shared';
import { users } from '../../storage/schema.ts';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { HttpClient as AnonymousClient } from '../../testing/httpClient.ts';
import {
  BLANK_QUESTIONS,
  HIDDEN_MARKER,
  LONG_ANSWER_LENGTH,
  LONG_QUESTION,
  LONG_TABLE_QUESTION,
  LONG_TABLE_ROWS,
  SAMPLES,
  fullPlan,
  type FullPlan,
} from '../../testing/fullPlan.ts';
import {
  comparable,
  expectContent,
  expectedContent,
  libreOfficeToPdf,
  readPdf,
  requireTool,
  unzipDocx,
  wordText,
  type ExpectedStep,
} from '../../testing/exportChecks.ts';

const HARBOR = 'Harbor View Academy';
const YEAR = currentSchoolYear();
const PRINCIPAL = 'principal.harbor@example.org';
const ATTESTED_NAME = 'María José Núñez';
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

let server: TestServer;
let principal: HttpClient;
let formId: string;
let bank: QuestionBank;
let fixture: FullPlan;
let expected: ExpectedStep[];

async function download(client: HttpClient, path: string) {
  const response = await client.request('GET', path);
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, body };
}

beforeAll(async () => {
  // Fail early, with the package to install, when the readers are missing.
  requireTool('pdftotext', 'poppler-utils');
  requireTool('soffice', 'libreoffice-writer-nogui');
  server = await startTestServer();
  // The principal signs with their own name: one that is hard to print.
  await server.services.storage.db.update(users).set({ name: ATTESTED_NAME }).where(eq(users.email, PRINCIPAL));
  principal = await signIn(server.url, PRINCIPAL);
  const list = await principal.get(`/api/forms?schoolYear=${YEAR}`);
  expect(list.status).toBe(200);
  formId = (list.body.forms as { _id: string; schoolName: string }[]).find((form) => form.schoolName === HARBOR)!._id;
  const plan = await principal.get(`/api/forms/${formId}`);
  expect(plan.status).toBe(200);
  const version = (plan.body.form ?? plan.body).questionBankVersion as number | null;
  bank = await server.services.banks.resolve(version);
  fixture = fullPlan(bank);
  for (const [index, step] of bank.steps.entries()) {
    const saved = await principal.put(`/api/forms/${formId}/step/${index + 1}`, {
      stepData: { data: fixture.answers.get(step.key), completed: true },
      mergeStrategy: 'last-write-wins',
    });
    expect(saved.status, JSON.stringify(saved.body).slice(0, 300)).toBe(200);
  }
  const attested = await principal.post(`/api/forms/${formId}/attest`, { name: ATTESTED_NAME });
  expect(attested.status, JSON.stringify(attested.body)).toBe(200);
  expected = expectedContent(bank, fixture.answers);
});
afterAll(() => server?.stop());

describe('the fixture', () => {
  it('answers every question type, with a 40-row table, a 20,000-character answer and blank and hidden questions', () => {
    const types = new Set(bank.steps.flatMap((step) => step.questions.filter((q) => fixture.answered.includes(q.id)).map((q) => q.type)));
    expect([...types].sort()).toEqual(['checkbox', 'select', 'table', 'text', 'textarea', 'yesno']);
    const questions = expected.flatMap((step) => step.questions);
    const long = questions.find((q) => q.id === LONG_QUESTION)!.answer;
    expect(long.kind === 'text' && long.text.length).toBe(LONG_ANSWER_LENGTH);
    expect(long.kind === 'text' && long.text.split('\n').length).toBeGreaterThan(50);
    const table = questions.find((q) => q.id === LONG_TABLE_QUESTION)!.answer;
    expect(table.kind === 'table' && table.rows.length).toBe(LONG_TABLE_ROWS);
    for (const id of BLANK_QUESTIONS) expect(questions.find((q) => q.id === id)!.answer.kind).toBe('blank');
    expect(questions.map((q) => q.id)).not.toContain('asp_programs');
  });
});

describe('GET /api/forms/:id/export/pdf', () => {
  let pdf: Buffer;
  let report: ReturnType<typeof readPdf>;

  beforeAll(async () => {
    const response = await download(principal, `/api/forms/${formId}/export/pdf`);
    expect(response.status, response.body.toString('utf8', 0, 300)).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Harbor_View_Academy_${YEAR}_Consolidated_Plan.pdf"`);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    pdf = response.body;
    report = readPdf(pdf);
  });

  it('is a valid Letter-size PDF with the Noto faces for every script embedded', () => {
    expect(report.pageSize).toMatch(/^612 x 792 pts/);
    expect(report.pages).toBeGreaterThan(bank.steps.length);
    for (const face of ['NotoSans-Regular', 'NotoSans-Bold', 'NotoSansSC', 'NotoNaskhArabic', 'NotoSansBengali']) {
      const line = report.fonts.find((font) => font.includes(face));
      expect(line, `${face} in ${report.fonts.join('\n')}`).toBeDefined();
      // pdffonts columns: name type encoding emb sub uni object ID
      expect(line!.split(/\s+/).slice(-5, -2), `${face} embedded, subset, with a Unicode map`).toEqual(['yes', 'yes', 'yes']);
    }
  });

  it('has the title block, the attestation and a footer with the school, the year and page numbers (no plan id) on every page', () => {
    const text = report.text;
    for (const value of [HARBOR, YEAR, 'Status: Draft', PRINCIPAL, `Attested by ${ATTESTED_NAME}`]) expect(text).toContain(value);
    const footers = text.match(new RegExp(`${HARBOR} · ${YEAR} Consolidated School Plan`, 'g')) ?? [];
    expect(footers).toHaveLength(report.pages);
    expect(text).not.toContain(formId);
    expect(text).toContain(`Page 1 of ${report.pages}`);
    expect(text).toContain(`Page ${report.pages} of ${report.pages}`);
  });

  it('ends no page with a step heading or with a question whose answer starts on the next page', () => {
    // A blank answer is a drawn line, with no text: its question may well end a page.
    const kept = new Set(expected.flatMap((step) => [step.heading, ...step.questions.filter((q) => q.answer.kind !== 'blank').map((q) => q.label)]));
    const pages = report.text.split('\f').slice(0, report.pages);
    for (const [i, page] of pages.entries()) {
      const lines = page.split('\n').filter((line) => line.trim() && !line.includes('Consolidated School Plan') && !/^Page \d+ of \d+$/.test(line.trim()));
      expect(kept.has(lines.at(-1)!.trim()), `page ${i + 1} ends with "${lines.at(-1)}"`).toBe(false);
    }
  });

  it('prints every step, visible question and answer in order, blanks blank and hidden answers nowhere', () => {
    expectContent(report.text, expected, { fromPdf: true, pdfRawText: report.rawText });
    expect(report.text).not.toContain(HIDDEN_MARKER);
  });

  it('keeps Spanish, Chinese, Bengali and Arabic text intact, and the 20,000-character answer whole', () => {
    const text = comparable(report.text);
    for (const sample of Object.values(SAMPLES)) expect(text).toContain(sample);
    const long = expected.flatMap((step) => step.questions).find((q) => q.id === LONG_QUESTION)!.answer;
    expect(comparable(report.text, true)).toContain(comparable(long.kind === 'text' ? long.text : '', true));
  });
});

describe('GET /api/forms/:id/export/docx', () => {
  let docx: Buffer;
  let xml: Record<string, string>;
  let documentXml: string;

  beforeAll(async () => {
    const response = await download(principal, `/api/forms/${formId}/export/docx`);
    expect(response.status, response.body.toString('utf8', 0, 300)).toBe(200);
    expect(response.headers.get('content-type')).toBe(DOCX_TYPE);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="Harbor_View_Academy_${YEAR}_Consolidated_Plan.docx"`);
    docx = response.body;
    xml = unzipDocx(docx);
    documentXml = xml['word/document.xml']!;
  });

  it('holds every step, visible question and answer in order, blanks blank and hidden answers nowhere', () => {
    const text = wordText(documentXml);
    expectContent(text, expected, { fromPdf: false });
    expect(documentXml).not.toContain(HIDDEN_MARKER);
    for (const value of [HARBOR, YEAR, 'Status: Draft', PRINCIPAL, `Attested by ${ATTESTED_NAME}`]) expect(text).toContain(value);
    for (const sample of Object.values(SAMPLES)) expect(text).toContain(sample);
  });

  it('has one real table per table answer, each with a navy header row of white bold text', () => {
    const tableAnswers = expected.flatMap((step) => step.questions).filter((q) => q.answer.kind === 'table');
    const tables = documentXml.split('<w:tbl>').slice(1);
    expect(tables).toHaveLength(tableAnswers.length);
    for (const [i, table] of tables.entries()) {
      const answer = tableAnswers[i]!.answer as { headers: string[]; rows: string[][] };
      const rows = table.split('<w:tr>').slice(1);
      expect(rows).toHaveLength(answer.rows.length + 1);
      expect(rows[0]).toContain('<w:tblHeader/>');
      expect(rows[0]).toMatch(/<w:shd [^>]*w:fill="1F2A44"/);
      expect(rows[0]).toMatch(/w:pStyle w:val="HeaderCell\d+"/);
      expect(wordText(rows[0]!).split('\n').filter(Boolean)).toEqual(answer.headers);
    }
    const styles = xml['word/styles.xml']!;
    expect(styles).toMatch(/w:styleId="HeaderCell\d+"[\s\S]*?<w:b\/>[\s\S]*?<w:color w:val="FFFFFF"\/>/);
  });

  it('keeps line breaks as breaks and names the covering fonts for East Asian and complex-script runs', () => {
    const long = expected.flatMap((step) => step.questions).find((q) => q.id === LONG_QUESTION)!.answer;
    const lines = long.kind === 'text' ? long.text.split('\n').length : 0;
    const paragraph = documentXml.split('</w:p>').find((p) => p.includes('Paragraph 1: the attendance team'))!;
    expect(paragraph.match(/<w:br\/>/g)).toHaveLength(lines - 1);
    expect(documentXml).toMatch(/<w:rFonts [^>]*w:eastAsia="Noto Sans SC"[^>]*\/>(?:(?!<\/w:r>).)*<w:t[^>]*>例如 王小明/);
    expect(documentXml).toMatch(/<w:rFonts [^>]*w:cs="Noto Sans Bengali"[^>]*\/>(?:(?!<\/w:r>).)*<w:t[^>]*>যেমন রহিম/);
    expect(documentXml).toMatch(/<w:rFonts [^>]*w:cs="Noto Naskh Arabic"[^>]*\/><w:rtl\/>(?:(?!<\/w:r>).)*<w:t[^>]*>مثلا أحمد/);
    const styles = xml['word/styles.xml']!;
    expect(styles).toMatch(/<w:rFonts w:ascii="Noto Sans" w:cs="Noto Naskh Arabic" w:eastAsia="Noto Sans SC" w:hAnsi="Noto Sans"\/>/);
    // Letter, 50 pt margins; the footer names the school and the year.
    expect(documentXml).toMatch(/<w:pgSz w:w="12240" w:h="15840"/);
    expect(documentXml).toMatch(/<w:pgMar w:top="1000" w:right="1000" w:bottom="1000" w:left="1000"/);
    expect(wordText(xml['word/footer1.xml']!)).toContain(`${HARBOR} · ${YEAR} Consolidated School Plan`);
  });

  it('opens in LibreOffice, which converts it to a PDF holding the answers', { timeout: 240_000 }, async () => {
    const converted = readPdf(await libreOfficeToPdf(docx));
    expect(converted.pages).toBeGreaterThan(bank.steps.length);
    const text = comparable(converted.text);
    for (const step of expected) expect(text).toContain(comparable(step.heading));
    expect(text).toContain(SAMPLES.spanish);
    expect(text).toContain('sp_crir40c2');
  });
});

describe('access', () => {
  it('answers 401 without a session, 404 for a malformed or unknown id', async () => {
    const anonymous = new AnonymousClient(server.url);
    expect((await anonymous.get(`/api/forms/${formId}/export/pdf`)).status).toBe(401);
    expect((await principal.get('/api/forms/not-an-id/export/pdf')).status).toBe(404);
    expect((await principal.get(`/api/forms/${'f'.repeat(24)}/export/docx`)).status).toBe(404);
  });

  it('lets readers of the plan export it and refuses everyone else with 403', async () => {
    // The demo district shares this plan with Harbor's assistant principal; unshared, a level 3 of the school reads nothing.
    const { body: apList } = await principal.get('/api/users?q=ap.harbor@example.org');
    const unshared = await principal.delete('/api/admin/forms/share', { formId, userIds: [apList.users[0]._id] });
    expect(unshared.status, JSON.stringify(unshared.body)).toBe(200);
    for (const email of ['superadmin@example.org', 'coordinator.harbor@example.org']) {
      const client = await signIn(server.url, email);
      const response = await download(client, `/api/forms/${formId}/export/pdf`);
      expect(response.status, email).toBe(200);
    }
    for (const email of ['principal.riverside@example.org', 'teacher.riverside@example.org', 'ap.harbor@example.org', 'teacher.harbor@example.org']) {
      const client = await signIn(server.url, email);
      const response = await client.get(`/api/forms/${formId}/export/docx`);
      expect(response.status, email).toBe(403);
    }
  });

  it('exports only the steps a section-limited share covers', async () => {
    const admin = await signIn(server.url, 'superadmin@example.org');
    const reader = await signIn(server.url, 'coordinator.riverside@example.org');
    const session = await reader.get('/api/auth/session');
    const readerId = (session.body.user._id ?? session.body.user.id) as string;
    const shared = await admin.post('/api/admin/forms/share', { formId, userIds: [readerId], permissions: 'view', sections: ['attendancePlan'] });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    const response = await download(reader, `/api/forms/${formId}/export/docx`);
    expect(response.status).toBe(200);
    const text = wordText(unzipDocx(response.body)['word/document.xml']!);
    const headings = expected.map((step) => step.heading).filter((heading) => text.includes(heading));
    expect(headings).toEqual([expected[5]!.heading]);
    expect(text).toContain(`${bank.steps.length - 1} step(s) not shared with you are not included.`);
  });
});

describe('file name', () => {
  it('keeps a school name in any script, with an ASCII fallback for old clients', async () => {
    const admin = await signIn(server.url, 'superadmin@example.org');
    const created = await admin.post('/api/forms', { schoolName: 'Escuela Niños 王', schoolYear: YEAR });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const response = await download(admin, `/api/forms/${created.body.formId}/export/docx`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Escuela_Ninos_${YEAR}_Consolidated_Plan.docx"; filename*=UTF-8''Escuela_Ni%C3%B1os_%E7%8E%8B_${YEAR}_Consolidated_Plan.docx`,
    );
  });
});

describe('rate limit', () => {
  it('allows 10 exports a minute per user, PDF and DOCX together, then answers 429', async () => {
    // A reader of its own (level 2 of the school), so no other test has used its budget.
    const admin = await signIn(server.url, 'superadmin@example.org');
    const created = await admin.post('/api/users/create', { name: 'Export Counter', email: 'export.counter@example.org', level: 2, schoolName: HARBOR });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const client = await signIn(server.url, 'export.counter@example.org');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await download(client, `/api/forms/${formId}/export/${i % 2 ? 'pdf' : 'docx'}`)).status);
    expect(statuses).toEqual(Array(10).fill(200));
    const refused = await client.get(`/api/forms/${formId}/export/pdf`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.body).toEqual({ error: 'Too many requests' });
    // Another user still has a budget of their own.
    expect((await download(principal, `/api/forms/${formId}/export/docx`)).status).toBe(200);
  });
});
