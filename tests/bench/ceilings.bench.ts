/**
 * Benchmark 7: the shared services' own ceilings on this machine, which a capacity estimate for
 * more cores scales against. PostgreSQL: commits per second of a transaction of one UPDATE by
 * primary key (a step save commits one), from pgbench with as many clients as the server's
 * pool. Redis: the step save's lock-and-count script and a plain GET, from redis-benchmark.
 * Each with the CPU the service and the load tool used, so a cost per operation comes out.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLAIM_AND_INCREMENT } from '../../server/src/kv/redis.ts';
import { QUICK, REDIS_URL } from './config.ts';
import { CpuSampler, cpuDisturbance, waitForQuiet, type CpuWindow } from './cpu.ts';
import { createDatabase } from './postgres.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { round } from './stats.ts';

const SECONDS = QUICK ? 5 : 15;
/** The server's PostgreSQL pool (storage/database.ts): the concurrency a process offers. */
const PG_CLIENTS = 20;
const PGBENCH_SCALE = 10;
const REDIS_CLIENTS = 50;
const REDIS_REQUESTS = QUICK ? 50_000 : 300_000;

/** Runs a load tool to its end while sampling CPU: the tool's own, PostgreSQL's and Redis's. */
function measured(command: string, args: string[]): Promise<{ output: string; cpu: CpuWindow }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const sampler = new CpuSampler({ [command]: [child.pid!] });
    sampler.start();
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const cpu = sampler.stop();
      if (code === 0) resolve({ output, cpu });
      else reject(new Error(`${command} exited ${code}:\n${output}`));
    });
  });
}

/** Microseconds of one core per operation, from a window's percent of a core and the rate. */
const microsPerOp = (percentOfCore: number | undefined, perSecond: number) => round(((percentOfCore ?? 0) / 100 / perSecond) * 1e6, 0);

async function postgresCeiling(result: BenchResult): Promise<void> {
  const database = await createDatabase('ceilings');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'csp-ceilings-'));
  try {
    await measured('pgbench', ['-i', '-q', '-s', String(PGBENCH_SCALE), database.url]);
    const script = path.join(scratch, 'one-update.sql');
    writeFileSync(script, `\\set aid random(1, ${PGBENCH_SCALE * 100_000})\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n`);
    await waitForQuiet();
    const { output, cpu } = await measured('pgbench', [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(PG_CLIENTS),
      '-j',
      '2',
      '-T',
      String(SECONDS),
      '-f',
      script,
      database.url,
    ]);
    const tps = Number(/tps = ([\d.]+)/.exec(output)?.[1]);
    const latency = Number(/latency average = ([\d.]+) ms/.exec(output)?.[1]);
    log(`pgbench one-UPDATE commits: ${round(tps, 0)}/s, latency ${latency} ms, cpu ${JSON.stringify(cpu.cpuPercent)}`);
    result.figures.push(
      { metric: `PostgreSQL: one-UPDATE commits (pgbench, ${PG_CLIENTS} clients)`, value: round(tps, 0), unit: '/s' },
      {
        metric: 'PostgreSQL CPU per commit (pgbench client)',
        value: `${microsPerOp(cpu.cpuPercent.postgres, tps)} (${microsPerOp(cpu.cpuPercent.pgbench, tps)})`,
        unit: 'µs',
      },
    );
    result.details.postgres = {
      clients: PG_CLIENTS,
      scale: PGBENCH_SCALE,
      seconds: SECONDS,
      tps: round(tps, 0),
      latencyMs: latency,
      cpu,
      disturbed: cpuDisturbance(cpu),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await database.drop();
  }
}

/** redis-benchmark's CSV: a header, then the test (a script's text spans lines) and its figures. */
function redisRate(output: string): { rps: number; p50: number; p99: number } {
  const [header, ...rest] = output.trim().split('\n');
  const names = header!.replaceAll('"', '').split(',');
  // The figures are the line's last fields, whatever the test's name holds.
  const values = rest
    .join('\n')
    .replace(/"$/, '')
    .split('","')
    .slice(-(names.length - 1));
  const field = (name: string) => Number(values[names.indexOf(name) - 1]);
  return { rps: field('rps'), p50: field('p50_latency_ms'), p99: field('p99_latency_ms') };
}

async function redisCeiling(result: BenchResult): Promise<void> {
  const url = new URL(REDIS_URL);
  const prefix = redisPrefix('ceilings');
  const base = ['-h', url.hostname, '-p', url.port || '6379', '-c', String(REDIS_CLIENTS), '-n', String(REDIS_REQUESTS), '-r', '100000', '--csv'];
  try {
    const tests = {
      // The save's script with a lock key and a counter key of ~100,000 editors; every call claims or renews.
      'lock-and-count script': [
        'EVAL',
        CLAIM_AND_INCREMENT,
        '2',
        `${prefix}lock:__rand_int__`,
        `${prefix}count:__rand_int__`,
        'owner',
        'owner\nbench',
        '300000',
        '60000',
      ],
      GET: ['GET', `${prefix}lock:__rand_int__`],
    };
    for (const [name, command] of Object.entries(tests)) {
      await waitForQuiet();
      const { output, cpu } = await measured('redis-benchmark', [...base, ...command]);
      const rate = redisRate(output);
      log(`redis ${name}: ${rate.rps}/s, p50 ${rate.p50} ms, p99 ${rate.p99} ms, cpu ${JSON.stringify(cpu.cpuPercent)}`);
      result.figures.push(
        { metric: `Redis: ${name} (redis-benchmark, ${REDIS_CLIENTS} clients)`, value: round(rate.rps, 0), unit: '/s' },
        {
          metric: `Redis CPU per ${name} (redis-benchmark client)`,
          value: `${microsPerOp(cpu.cpuPercent.redis, rate.rps)} (${microsPerOp(cpu.cpuPercent['redis-benchmark'], rate.rps)})`,
          unit: 'µs',
        },
      );
      result.details[`redis ${name}`] = { ...rate, cpu, disturbed: cpuDisturbance(cpu) };
    }
  } finally {
    clearRedisPrefix(prefix);
  }
}

await runBenchmark('ceilings', 'PostgreSQL and Redis ceilings on this machine', async (result) => {
  await postgresCeiling(result);
  await redisCeiling(result);
});
