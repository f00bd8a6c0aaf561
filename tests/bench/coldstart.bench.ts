/**
 * Benchmark 6: cold start of the server process, from spawn to its first healthy answer
 * (GET /api/health → 200), on the embedded default (PGlite in DATA_DIR, no Redis) and on
 * PostgreSQL + Redis; each both on an empty store (migrations and the demo seed run) and as a
 * restart on the store it left. The server listens before it is ready (answering 503): the time
 * to that first answer is reported too.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../server/src/testing/serverProcess.ts';
import { QUICK, ROOT } from './config.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { createDatabase } from './postgres.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { round, summarize } from './stats.ts';
import { serverEnv } from './servers.ts';
import { sleep } from './time.ts';
import { waitForQuiet } from './cpu.ts';

const MAIN = path.join(ROOT, 'server/src/main.ts');
const REPEATS = QUICK ? 2 : 3;

interface Start {
  listeningSeconds: number;
  healthySeconds: number;
}

/** Spawns the server and times its first answer and its first healthy answer; then stops it. */
async function timeStart(env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port), HOST: '127.0.0.1', APP_URL: url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let listening: number | null = null;
  let healthy: number | null = null;
  try {
    while (healthy === null) {
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output.slice(0, 2000)}`);
      if (performance.now() - started > 120_000) throw new Error(`server not healthy in 120 s:\n${output.slice(0, 2000)}`);
      const status = await fetch(`${url}/api/health`).then(
        (response) => response.arrayBuffer().then(() => response.status),
        () => null,
      );
      const now = performance.now();
      if (status !== null) listening ??= now;
      if (status === 200) healthy = now;
      else await sleep(10);
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
  return { listeningSeconds: round((listening! - started) / 1000, 2), healthySeconds: round((healthy - started) / 1000, 2) };
}

await runBenchmark('coldstart', 'Cold start: spawn to healthy, embedded PGlite and PostgreSQL + Redis', async (result: BenchResult) => {
  const configurations: Record<string, Start[]> = {
    'embedded (PGlite), empty store': [],
    'embedded (PGlite), restart': [],
    'PostgreSQL + Redis, empty database': [],
    'PostgreSQL + Redis, restart': [],
  };
  await waitForQuiet(10_000);
  // Node itself: the floor under every start.
  const bare: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).once('exit', () => resolve()));
    bare.push((performance.now() - started) / 1000);
  }

  for (let i = 0; i < REPEATS; i++) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'csp-bench-pglite-'));
    try {
      const env = serverEnv(undefined, undefined, { DATA_DIR: dataDir });
      configurations['embedded (PGlite), empty store']!.push(await timeStart(env));
      configurations['embedded (PGlite), restart']!.push(await timeStart(env));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const database = await createDatabase('cold');
    const prefix = redisPrefix('cold');
    try {
      const env = serverEnv(database.url, prefix);
      configurations['PostgreSQL + Redis, empty database']!.push(await timeStart(env));
      configurations['PostgreSQL + Redis, restart']!.push(await timeStart(env));
    } finally {
      clearRedisPrefix(prefix);
      await database.drop();
    }
  }

  const summary = Object.fromEntries(
    Object.entries(configurations).map(([name, starts]) => [
      name,
      {
        healthySeconds: round(summarize(starts.map((s) => s.healthySeconds)).median, 2),
        listeningSeconds: round(summarize(starts.map((s) => s.listeningSeconds)).median, 2),
        runs: starts,
      },
    ]),
  );
  for (const [name, figures] of Object.entries(summary)) {
    log(
      `${name}: healthy in ${figures.healthySeconds} s (listening after ${figures.listeningSeconds} s), runs ${figures.runs.map((r) => r.healthySeconds).join(' / ')}`,
    );
    result.figures.push({ metric: `${name}: to healthy (listening)`, value: `${figures.healthySeconds} (${figures.listeningSeconds})`, unit: 's' });
  }
  const node = round(summarize(bare).median, 2);
  result.figures.push({ metric: 'bare `node -e 0` for comparison', value: node, unit: 's' });
  result.details = {
    repeats: REPEATS,
    nodeBareSeconds: node,
    configurations: summary,
    method: 'spawn to first 200 from GET /api/health, polled every 10 ms; median of the runs',
  };
});
