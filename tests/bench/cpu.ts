/**
 * CPU and memory of processes on this machine, from /proc (Linux): a benchmark's groups of
 * processes (servers, load generators, PostgreSQL, Redis), the rest of the machine, and the
 * hypervisor's steal; and a wait for a quiet machine before measuring.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { REDIS_URL } from './config.ts';
import { log } from './results.ts';
import { round } from './stats.ts';
import { sleep } from './time.ts';

const TICKS = 100; // USER_HZ on Linux

function procTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return null;
  }
}

function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** A process and its descendants (a server's primary and its workers), as they are now. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    try {
      const children = readFileSync(`/proc/${tree[i]}/task/${tree[i]}/children`, 'utf8').trim();
      if (children) tree.push(...children.split(' ').map(Number));
    } catch {
      // gone
    }
  }
  return tree;
}

let redisPidCache: number | null | undefined;
function sharedRedisPid(): number | null {
  if (redisPidCache !== undefined) return redisPidCache;
  try {
    const url = new URL(REDIS_URL);
    const info = execFileSync('redis-cli', ['-h', url.hostname, '-p', url.port || '6379', 'info', 'server'], { encoding: 'utf8' });
    redisPidCache = Number(/process_id:(\d+)/.exec(info)?.[1]) || null;
  } catch {
    redisPidCache = null;
  }
  return redisPidCache;
}

/** Machine-wide ticks; `steal` is time the hypervisor gave this VM's CPUs to other guests. */
function machineTicks(): { busy: number; steal: number; total: number } {
  const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
  const values = cpu!.trim().split(/\s+/).slice(1).map(Number);
  const idle = values[3]! + (values[4] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, steal: values[7] ?? 0, total };
}

export interface CpuWindow {
  seconds: number;
  /**
   * Percent of one core, per group (100 = one core busy), averaged over the window; `steal` is
   * the time the hypervisor ran other guests instead of this VM, and `other` the rest of the
   * machine's busy time (processes outside this benchmark, e.g. other test runs).
   */
  cpuPercent: Record<string, number>;
  /** Whole machine busy, percent of all cores. */
  machineBusyPercent: number;
  /** Peak resident memory of each group's processes seen in the window, MB. */
  rssMb: Record<string, number>;
}

/**
 * Samples CPU time of named process groups (and PostgreSQL's and Redis's processes) between
 * `start()` and `stop()`, plus their resident memory once a second.
 */
export class CpuSampler {
  private readonly groups: Record<string, () => number[]>;
  private startTicks = new Map<number, number>();
  private startMachine = machineTicks();
  private startedAt = 0;
  private peakRss: Record<string, number> = {};
  private timer: NodeJS.Timeout | undefined;
  private seen = new Map<string, Map<number, number>>();

  /** Another sampler of the same processes (for a second, overlapping window). */
  clone(): CpuSampler {
    return new CpuSampler(this.groups);
  }

  constructor(groups: Record<string, number[] | (() => number[])>) {
    this.groups = Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, typeof pids === 'function' ? pids : () => pids]));
    this.groups.postgres ??= () => pidsNamed('postgres');
    // The Redis server of REDIS_URL only (test suites may run throwaway redis-servers of their own).
    const redisPid = sharedRedisPid();
    this.groups.redis ??= () => (redisPid ? [redisPid] : []);
  }

  start(): void {
    this.startedAt = performance.now();
    this.startMachine = machineTicks();
    this.peakRss = {};
    this.seen = new Map();
    this.startTicks = new Map();
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), 1000);
    this.timer.unref();
  }

  private sample(initial: boolean): void {
    for (const [name, pidsOf] of Object.entries(this.groups)) {
      let rss = 0;
      const ticks = this.seen.get(name) ?? new Map<number, number>();
      for (const pid of pidsOf()) {
        const t = procTicks(pid);
        if (t === null) continue;
        // A process first seen now counts from now: only CPU spent inside the window.
        if (initial || !this.startTicks.has(pid)) this.startTicks.set(pid, t);
        ticks.set(pid, t);
        rss += rssMb(pid) ?? 0;
      }
      this.seen.set(name, ticks);
      this.peakRss[name] = Math.max(this.peakRss[name] ?? 0, rss);
    }
  }

  stop(): CpuWindow {
    if (this.timer) clearInterval(this.timer);
    this.sample(false);
    const seconds = (performance.now() - this.startedAt) / 1000;
    const cpuPercent: Record<string, number> = {};
    for (const [name, ticks] of this.seen) {
      let used = 0;
      for (const [pid, t] of ticks) used += t - (this.startTicks.get(pid) ?? t);
      cpuPercent[name] = round((used / TICKS / seconds) * 100, 0);
    }
    const machine = machineTicks();
    const elapsedTicks = Math.max(1, machine.total - this.startMachine.total);
    const machineBusyPercent = round(((machine.busy - this.startMachine.busy) / elapsedTicks) * 100, 0);
    const ours = Object.values(cpuPercent).reduce((a, b) => a + b, 0);
    cpuPercent.steal = round(((machine.steal - this.startMachine.steal) / elapsedTicks) * 100 * os.cpus().length, 0);
    cpuPercent.other = Math.max(0, round(machineBusyPercent * os.cpus().length - ours - cpuPercent.steal, 0));
    return {
      seconds: round(seconds, 1),
      cpuPercent,
      machineBusyPercent,
      rssMb: Object.fromEntries(Object.entries(this.peakRss).map(([k, v]) => [k, round(v, 0)])),
    };
  }
}

/** Why a window's figures say little about this code: other processes, or the hypervisor, took a good part of a core. */
export function cpuDisturbance(cpu: CpuWindow): string | null {
  const reasons = [
    (cpu.cpuPercent.other ?? 0) > 30 ? `other processes used ${cpu.cpuPercent.other}% of a core` : '',
    (cpu.cpuPercent.steal ?? 0) > 30 ? `the hypervisor took ${cpu.cpuPercent.steal}% of a core (steal)` : '',
  ].filter(Boolean);
  return reasons.length ? reasons.join(', ') : null;
}

/** Machine busy percent (all cores) over `ms`. */
async function machineBusy(ms = 1000): Promise<number> {
  const before = machineTicks();
  await sleep(ms);
  const after = machineTicks();
  return round(((after.busy - before.busy) / Math.max(1, after.total - before.total)) * 100, 0);
}

/**
 * Waits (bounded) until the machine is quiet: other work on it (another test run) would take
 * the cores this benchmark measures. Returns the last busy figure seen and the time waited.
 */
export async function waitForQuiet(maxWaitMs = 30_000, busyPercent = 20): Promise<{ busyPercent: number; waitedMs: number }> {
  const started = Date.now();
  let busy = await machineBusy(1500);
  while (busy > busyPercent && Date.now() - started < maxWaitMs) busy = await machineBusy(1500);
  if (busy > busyPercent) log(`machine still ${busy}% busy after ${Math.round((Date.now() - started) / 1000)} s: measuring anyway (see cpu.other)`);
  return { busyPercent: busy, waitedMs: Date.now() - started };
}
