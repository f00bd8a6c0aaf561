/**
 * Reads export files for real in tests: PDFs with poppler's pdfinfo, pdffonts and pdftotext
 * (Debian package poppler-utils), DOCX files by unzipping their XML, and LibreOffice (Debian
 * package libreoffice-writer-nogui) to show a DOCX opens. A missing tool fails the test with the
 * package to install; nothing is skipped. Checks throw node:assert errors (no test runner needed).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { visibleQuestions, type Answer, type Question, type QuestionBank, type StepAnswers, type TableAnswer } from '@csp/shared';

/** Fails with the Debian package to install when a command is not on PATH. */
export function requireTool(command: string, debianPackage: string): void {
  const found = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  if (found.status !== 0 || !found.stdout.trim()) {
    throw new Error(`${command} is not on PATH: install the Debian package ${debianPackage} (apt-get install -y --no-install-recommends ${debianPackage})`);
  }
}

function withTempFile<T>(name: string, data: Buffer, run: (file: string, dir: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'csp-export-'));
  const file = path.join(dir, name);
  writeFileSync(file, data);
  try {
    return run(file, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface PdfReport {
  pages: number;
  pageSize: string;
  /** pdffonts lines: font name, type, embedded flag. */
  fonts: string[];
  text: string;
  rawText: string;
}

/**
 * Checks a PDF with poppler (no syntax errors) and returns its page count, fonts and text: `text`
 * in reading order (lines across a table row), `rawText` in drawing order (a table cell's lines
 * together; right-to-left words are not put back in order there).
 */
export function readPdf(pdf: Buffer): PdfReport {
  requireTool('pdftotext', 'poppler-utils');
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', 'not a PDF');
  return withTempFile('export.pdf', pdf, (file) => {
    const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' });
    assert.equal(info.status, 0, `pdfinfo failed: ${info.stderr}`);
    assert.equal(info.stderr, '', 'pdfinfo reports errors');
    const fonts = spawnSync('pdffonts', [file], { encoding: 'utf8' });
    assert.equal(fonts.status, 0, `pdffonts failed: ${fonts.stderr}`);
    const extract = (...args: string[]) => {
      const result = spawnSync('pdftotext', ['-enc', 'UTF-8', ...args, file, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      assert.equal(result.status, 0, `pdftotext failed: ${result.stderr}`);
      assert.equal(result.stderr, '', 'pdftotext reports errors');
      return result.stdout;
    };
    return {
      pages: Number(/^Pages:\s+(\d+)/m.exec(info.stdout)?.[1] ?? 0),
      pageSize: /^Page size:\s+(.*)$/m.exec(info.stdout)?.[1] ?? '',
      fonts: fonts.stdout.split('\n').slice(2).filter(Boolean),
      text: extract(),
      rawText: extract('-raw'),
    };
  });
}

/** A DOCX's files (it must be a valid zip holding word/document.xml). */
export function unzipDocx(docx: Buffer): Record<string, string> {
  assert.equal(docx.subarray(0, 2).toString('latin1'), 'PK', 'not a zip file');
  const files = unzipSync(new Uint8Array(docx));
  const xml: Record<string, string> = {};
  for (const [name, data] of Object.entries(files)) if (name.endsWith('.xml') || name.endsWith('.rels')) xml[name] = strFromU8(data);
  for (const name of ['word/document.xml', '[Content_Types].xml']) assert.ok(name in xml, `the DOCX holds no ${name} (it has ${Object.keys(xml).join(', ')})`);
  return xml;
}

const unescapeXml = (text: string) =>
  text.replace(/&(lt|gt|amp|quot|apos|#(\d+)|#x([0-9a-f]+));/gi, (_, name: string, dec?: string, hex?: string) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    return ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[name.toLowerCase()]!;
  });

/** The text of WordprocessingML: runs' text, a line break for w:br and at the end of each paragraph. */
export function wordText(xml: string): string {
  let text = '';
  for (const match of xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:br\s*\/>|<w:tab\s*\/>|<\/w:p>/g)) {
    if (match[0].startsWith('<w:t')) text += unescapeXml(match[1] ?? '');
    else if (match[0].startsWith('<w:br')) text += '\n';
    else if (match[0].startsWith('<w:tab')) text += '\t';
    else text += '\n';
  }
  return text;
}

/**
 * Converts a DOCX to PDF with headless LibreOffice; fails when it cannot open the file. Runs
 * asynchronously: a conversion takes seconds, and a test server in this process must keep serving.
 */
export async function libreOfficeToPdf(docx: Buffer): Promise<Buffer> {
  requireTool('soffice', 'libreoffice-writer-nogui');
  const dir = mkdtempSync(path.join(tmpdir(), 'csp-export-'));
  try {
    const file = path.join(dir, 'export.docx');
    writeFileSync(file, docx);
    const args = ['--headless', '--norestore', `-env:UserInstallation=file://${dir}/profile`, '--convert-to', 'pdf', '--outdir', dir, file];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn('soffice', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
    const pdf = path.join(dir, 'export.pdf');
    assert.equal(code, 0, `soffice failed: ${output}`);
    assert.ok(existsSync(pdf), `LibreOffice wrote no PDF: ${output}`);
    return readFileSync(pdf);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Text for comparing: one kind of space, no bidi control marks (pdftotext wraps right-to-left text
 * in them), no page footers. With `looseBrackets`, brackets are dropped too: pdftotext puts a
 * bracket next to right-to-left text on the wrong side of it.
 */
export function comparable(text: string, looseBrackets = false): string {
  let result = text
    .normalize('NFC')
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    // The footer line (pdf.ts, footerText): "<school> · <year> Consolidated School Plan".
    .replace(/^[^\n]*· \d{4}-\d{4} Consolidated School Plan/gm, ' ')
    .replace(/Page \d+ of \d+/g, ' ');
  if (looseBrackets) result = result.replace(/[()[\]{}]/g, '');
  return result.replace(/\s+/g, ' ').trim();
}

type ExpectedAnswer = { kind: 'blank' } | { kind: 'text'; text: string } | { kind: 'table'; headers: string[]; rows: string[][] };
interface ExpectedQuestion {
  id: string;
  label: string;
  answer: ExpectedAnswer;
}
export interface ExpectedStep {
  heading: string;
  questions: ExpectedQuestion[];
}

/**
 * What an export of these answers must show, worked out from the bank and the answers directly
 * (not through the export code): every step in bank order, its visible questions, their answers.
 */
export function expectedContent(bank: QuestionBank, answers: ReadonlyMap<string, StepAnswers>): ExpectedStep[] {
  const answerOf = (question: Question, value: Answer | undefined): ExpectedAnswer => {
    if (value === null || value === undefined || value === '') return { kind: 'blank' };
    if (typeof value === 'boolean') return { kind: 'text', text: value ? 'Yes' : 'No' };
    if (question.type === 'select') return { kind: 'text', text: question.options!.find((option) => option.value === value)!.label };
    if (typeof value === 'string') return { kind: 'text', text: value };
    const table = value as TableAnswer;
    return { kind: 'table', headers: table.headers, rows: table.rows };
  };
  return bank.steps.map((step, index) => {
    const data = answers.get(step.key) ?? {};
    return {
      heading: `Step ${index + 1}: ${step.title}`,
      questions: visibleQuestions(step, data).map((question) => ({
        id: question.id,
        label: `Q${question.number}: ${question.title}`,
        answer: answerOf(question, data[question.id]),
      })),
    };
  });
}

/**
 * Checks an export's text against the expected content: the steps and questions in order, each
 * answer between its question and the next (text whole, every table cell), blanks empty.
 *
 * Text extracted from a PDF (`fromPdf`, with the drawing-order text as `pdfRawText`) is read the
 * way it lies on the page: brackets next to right-to-left text may land on its other side, and a
 * table is read line by line across its columns, so a table cell that wraps is looked for in the
 * drawing-order text instead.
 */
export function expectContent(extracted: string, steps: ExpectedStep[], options: { fromPdf: boolean; pdfRawText?: string }): void {
  const text = comparable(extracted, options.fromPdf);
  const rawCompact = options.pdfRawText === undefined ? null : comparable(options.pdfRawText, true).replace(/ /g, '');
  const norm = (value: string) => comparable(value, options.fromPdf);
  let cursor = 0;
  const find = (needle: string, what: string) => {
    const at = text.indexOf(norm(needle), cursor);
    assert.ok(at >= 0, `${what} not found in order: ${needle.slice(0, 120)}`);
    return at;
  };
  const flat: { step: ExpectedStep; question: ExpectedQuestion | null }[] = steps.flatMap((step) => [
    { step, question: null },
    ...step.questions.map((question) => ({ step, question })),
  ]);
  for (const [i, entry] of flat.entries()) {
    if (!entry.question) {
      cursor = find(entry.step.heading, 'step heading') + norm(entry.step.heading).length;
      continue;
    }
    const { question } = entry;
    const labelAt = find(question.label, `question ${question.id}`);
    const start = labelAt + norm(question.label).length;
    const next = flat[i + 1];
    const nextText = next ? (next.question ? next.question.label : next.step.heading) : null;
    const end = nextText ? text.indexOf(norm(nextText), start) : text.length;
    assert.ok(end >= start, `what follows ${question.id} not found`);
    const body = text.slice(start, end).trim();
    switch (question.answer.kind) {
      case 'blank':
        assert.equal(body, '', `${question.id} is unanswered and must print blank, but prints: ${body.slice(0, 300)}`);
        break;
      case 'text':
        assert.ok(
          body.includes(norm(question.answer.text)),
          `answer to ${question.id}: ${norm(question.answer.text).slice(0, 300)} not in: ${body.slice(0, 600)}`,
        );
        break;
      case 'table':
        for (const cell of [...question.answer.headers, ...question.answer.rows.flat()]) {
          const wanted = norm(cell);
          const found = body.includes(wanted) || (rawCompact !== null && rawCompact.includes(wanted.replace(/ /g, '')));
          assert.ok(found, `table cell of ${question.id}: ${cell}`);
        }
        break;
    }
    cursor = start;
  }
}
