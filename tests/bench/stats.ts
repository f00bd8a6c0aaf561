/** Summaries of samples (latencies, rates) and rounding for the results. */

export interface Summary {
  count: number;
  median: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(samples).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, median: NaN, p95: NaN, p99: NaN, max: NaN, mean: NaN };
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!;
  let sum = 0;
  for (const value of sorted) sum += value;
  return { count: n, median: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[n - 1]!, mean: sum / n };
}

export const round = (value: number, digits = 1) => (Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : value);

export function roundSummary(summary: Summary, digits = 1): Summary {
  return Object.fromEntries(Object.entries(summary).map(([key, value]) => [key, key === 'count' ? value : round(value, digits)])) as unknown as Summary;
}
