/**
 * Summarizes a V8 CPU profile (`--cpu-prof`; `BENCH_PROFILE=1` starts every benchmark server with
 * it, into results/profiles): self time by function and by package, and inclusive time of the
 * project's own functions.
 *
 *   pnpm exec node tests/bench/profile-summary.ts <file.cpuprofile> [top=25] [filter]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const flags = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith('--'))
    .map((a) => a.slice(2).split('=') as [string, string]),
);
const [file, topArg, filter] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [top] [filter] [--from=s] [--to=s] [--busiest=s] [--callers=text]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Sample times (µs from the profile's start); a window keeps only the samples inside it.
const times: number[] = [];
let clock = 0;
for (const delta of profile.timeDeltas) times.push((clock += delta));
let from = Number(flags.from ?? 0) * 1e6;
let to = flags.to ? Number(flags.to) * 1e6 : Infinity;
const isIdle = (id: number) => byId.get(id)!.callFrame.functionName === '(idle)';
if (flags.busiest) {
  // The busiest window of this many seconds (least idle): the steady state under load.
  const width = Number(flags.busiest) * 1e6;
  let best = 0;
  let bestStart = 0;
  let busy = 0;
  let left = 0;
  for (let right = 0; right < times.length; right++) {
    if (!isIdle(profile.samples[right]!)) busy += profile.timeDeltas[right] ?? 0;
    while (times[right]! - times[left]! > width) {
      if (!isIdle(profile.samples[left]!)) busy -= profile.timeDeltas[left] ?? 0;
      left++;
    }
    if (busy > best) {
      best = busy;
      bestStart = times[left]!;
    }
  }
  from = bestStart;
  to = bestStart + width;
}
const self = new Map<number, number>();
profile.samples.forEach((id, index) => {
  if (times[index]! < from || times[index]! > to) return;
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);

function packageOf(url: string): string {
  if (!url) return '(native/vm)';
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1]!;
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (plain) return plain[1]!;
  if (url.startsWith('node:')) return 'node core';
  const own = /\/work\/main\/([^/]+\/src\/[^/]+)/.exec(url) ?? /(server|shared)\/src\/([^/]+)/.exec(url);
  return own ? `csp ${own[1]}` : url;
}
const label = (node: Node) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace('file:///work/main/', '')}:${node.callFrame.lineNumber + 1}`;

const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, time] of self) {
  const node = byId.get(id)!;
  byFunction.set(label(node), (byFunction.get(label(node)) ?? 0) + time);
  const pkg = node.callFrame.url ? packageOf(node.callFrame.url) : node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : '(native/vm)';
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time);
  // Inclusive: credit every distinct own-code ancestor frame once.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!;
    const url = frame.callFrame.url;
    if (!url.includes('/work/main/') || url.includes('node_modules')) continue;
    const key = label(frame);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + time);
  }
}

const pct = (time: number) => `${((time / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, map: Map<string, number>, filtered = true) => {
  console.log(`\n${title}`);
  [...map]
    .filter(([key]) => !filtered || !filter || key.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([key, time]) => console.log(`${pct(time)}  ${(time / 1000).toFixed(0).padStart(7)} ms  ${key}`));
};
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, window ${(from / 1e6).toFixed(1)}-${Number.isFinite(to) ? (to / 1e6).toFixed(1) : 'end'} s of ${(clock / 1e6).toFixed(1)} s`,
);
if (flags.stalls) {
  // Event-loop stalls: runs of consecutive non-idle samples longer than this many ms, and what ran in them.
  const minimum = Number(flags.stalls) * 1000;
  const runs: { start: number; length: number; ids: number[] }[] = [];
  let current: { start: number; length: number; ids: number[] } | null = null;
  profile.samples.forEach((id, index) => {
    const at = times[index]!;
    if (at < from || at > to) return;
    if (isIdle(id)) {
      if (current && current.length >= minimum) runs.push(current);
      current = null;
      return;
    }
    current ??= { start: at, length: 0, ids: [] };
    current.length += profile.timeDeltas[index] ?? 0;
    current.ids.push(id);
  });
  console.log(
    `${runs.length} busy stretches of ${flags.stalls} ms or more (no idle sample): ${runs.map((r) => `${(r.start / 1e6).toFixed(2)} s: ${(r.length / 1000).toFixed(0)} ms`).join(', ')}`,
  );
  const frames = new Map<string, number>();
  for (const run of runs) {
    for (const id of run.ids) {
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const key = label(byId.get(at)!);
        if (seen.has(key) || !byId.get(at)!.callFrame.url) continue;
        seen.add(key);
        frames.set(key, (frames.get(key) ?? 0) + 1);
      }
    }
  }
  const total = runs.reduce((n, r) => n + r.ids.length, 0);
  console.log('frames on the stack during those stretches (share of their samples):');
  [...frames]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([key, count]) => console.log(`${((count / total) * 100).toFixed(0).padStart(4)}%  ${key}`));
  process.exit(0);
}
if (flags.inclusive) {
  // Share of samples whose stack passes through a frame matching each text (comma-separated).
  for (const text of flags.inclusive.split(',')) {
    let time = 0;
    for (const [id, t] of self) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        if (label(byId.get(at)!).includes(text)) {
          time += t;
          break;
        }
      }
    }
    console.log(`${pct(time)}  ${(time / 1000).toFixed(0).padStart(7)} ms  inclusive: ${text}`);
  }
  process.exit(0);
}
if (flags.attribute) {
  // Time spent inside a package (or any frame matching the text), charged to the nearest project frame that called it.
  const charged = new Map<string, number>();
  for (const [id, time] of self) {
    let inside = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      const url = frame.callFrame.url;
      if (url.includes(flags.attribute) || label(frame).includes(flags.attribute)) inside = true;
      else if (inside && url.includes('/work/main/') && !url.includes('node_modules')) {
        charged.set(label(frame), (charged.get(label(frame)) ?? 0) + time);
        break;
      }
    }
  }
  print(`time in "${flags.attribute}" by calling project frame`, charged, false);
  process.exit(0);
}
if (flags.callers) {
  // Who calls frames matching the text: the chains of the heaviest matching stacks.
  const chains = new Map<string, number>();
  for (const [id, time] of self) {
    const frames: string[] = [];
    let matched = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      if (label(frame).includes(flags.callers)) matched = true;
      if (matched && frame.callFrame.url) frames.push(label(frame));
    }
    if (!matched) continue;
    const key = frames.slice(0, 12).join('\n      <- ');
    chains.set(key, (chains.get(key) ?? 0) + time);
  }
  print(`stacks through "${flags.callers}"`, chains, false);
  process.exit(0);
}
print('self time by package', byPackage);
print('self time by function', byFunction);
print('inclusive time of project functions', inclusive);
