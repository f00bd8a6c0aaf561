/** What a benchmark reports: progress lines, its figures and result file, the machine it ran on. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESULTS_DIR, ROOT } from './config.ts';
import { round } from './stats.ts';

export function log(...parts: unknown[]): void {
  const stamp = new Date().toISOString().slice(11, 19);
  console.log(`[${stamp}]`, ...parts);
}

export interface Figure {
  /** What was measured, as printed in the summary table. */
  metric: string;
  value: number | string | null;
  unit: string;
  /** The target for this figure, as text (e.g. "<= 100"). */
  target?: string;
  pass?: boolean;
}

export interface BenchResult {
  name: string;
  title: string;
  startedAt: string;
  seconds: number;
  figures: Figure[];
  /** Everything else the benchmark measured (levels, samples, CPU, notes). */
  details: Record<string, unknown>;
}

function writeResult(result: BenchResult): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${result.name}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function machineInfo(): Record<string, unknown> {
  const cpus = os.cpus();
  const version = (command: string, args: string[]) => {
    try {
      return execFileSync(command, args, { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGb: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: version('psql', ['--version']),
    redis: version('redis-server', ['--version']).split(' ').slice(0, 3).join(' '),
  };
}

/** Runs a benchmark's body, timing it and writing its result file; exits non-zero on failure. */
export async function runBenchmark(name: string, title: string, body: (result: BenchResult) => Promise<void>): Promise<void> {
  const started = performance.now();
  const result: BenchResult = { name, title, startedAt: new Date().toISOString(), seconds: 0, figures: [], details: {} };
  let failed = false;
  try {
    await body(result);
  } catch (error) {
    failed = true;
    result.details.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    console.error(`${name} failed:`, error);
  }
  result.seconds = round((performance.now() - started) / 1000, 1);
  const file = writeResult(result);
  log(`${name}: wrote ${path.relative(ROOT, file)} (${result.seconds} s)`);
  process.exit(failed ? 1 : 0);
}
