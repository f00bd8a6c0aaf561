/** A small seeded PRNG (mulberry32): a randomized test prints its seed and can be replayed with it. */
export class Random {
  private state: number;
  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.state = this.seed;
  }

  /** In [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  word(): string {
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    let word = '';
    for (let i = 1 + this.int(6); i > 0; i--) word += letters[this.int(letters.length)];
    return word;
  }
}

/** The seed from COLLAB_SEED (to replay a failure), else a fresh one. */
export function seedFromEnv(name = 'COLLAB_SEED'): number {
  const given = process.env[name];
  if (given && /^\d+$/.test(given)) return Number(given) >>> 0;
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}
