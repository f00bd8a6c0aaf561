import { claimPayload, claimValue, type ClaimRequest, type HashEntry, type KeyValueStore, type LockClaim } from './store.ts';

interface Entry {
  value: string;
  expiresAt: number;
}

/** Single-process stand-in for Redis: same semantics, nothing shared across processes. */
export class MemoryStore implements KeyValueStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly hashes = new Map<string, Map<string, Entry>>();
  private readonly sweeper: NodeJS.Timeout;

  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    for (const key of this.entries.keys()) this.live(key);
    for (const [key, hash] of this.hashes) {
      for (const [field, entry] of hash) if (entry.expiresAt <= this.now()) hash.delete(field);
      if (hash.size === 0) this.hashes.delete(key);
    }
  }

  async get(key: string) {
    return this.live(key)?.value ?? null;
  }

  async getMany(keys: string[]) {
    return keys.map((key) => {
      const entry = this.live(key);
      if (!entry) return null;
      return { value: entry.value, ttlMs: Number.isFinite(entry.expiresAt) ? entry.expiresAt - this.now() : -1 };
    });
  }

  async set(key: string, value: string, ttlMs?: number) {
    this.entries.set(key, { value, expiresAt: ttlMs ? this.now() + ttlMs : Number.POSITIVE_INFINITY });
  }

  async delete(key: string) {
    this.entries.delete(key);
  }

  async claim(key: string, owner: string, payload: string, ttlMs: number): Promise<LockClaim> {
    const current = this.live(key);
    if (current && claimPayload(current.value).owner !== owner) {
      return { acquired: false, refreshed: false, value: current.value, ttlMs: current.expiresAt - this.now() };
    }
    if (current) {
      current.expiresAt = this.now() + ttlMs;
      return { acquired: true, refreshed: true, value: current.value, ttlMs };
    }
    const value = claimValue(owner, payload);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    return { acquired: true, refreshed: false, value, ttlMs };
  }

  async extend(key: string, owner: string, ttlMs: number) {
    const current = this.live(key);
    if (!current || claimPayload(current.value).owner !== owner) return false;
    current.expiresAt = this.now() + ttlMs;
    return true;
  }

  async release(key: string, owner: string) {
    const current = this.live(key);
    if (!current || claimPayload(current.value).owner !== owner) return false;
    this.entries.delete(key);
    return true;
  }

  async increment(key: string, ttlMs: number) {
    const current = this.live(key);
    const next = (current ? Number(current.value) : 0) + 1;
    this.entries.set(key, { value: String(next), expiresAt: current?.expiresAt ?? this.now() + ttlMs });
    return next;
  }

  async claimAndIncrement(claim: ClaimRequest, counter: { key: string; ttlMs: number }) {
    return { claim: await this.claim(claim.key, claim.owner, claim.payload, claim.ttlMs), count: await this.increment(counter.key, counter.ttlMs) };
  }

  async hashSet(key: string, field: string, value: string, ttlMs: number) {
    let hash = this.hashes.get(key);
    if (!hash) this.hashes.set(key, (hash = new Map()));
    hash.set(field, { value, expiresAt: this.now() + ttlMs });
  }

  async hashSetMany(entries: HashEntry[]) {
    for (const { key, field, value, ttlMs } of entries) await this.hashSet(key, field, value, ttlMs);
  }

  async hashGetAll(key: string) {
    const result: Record<string, string> = {};
    for (const [field, entry] of this.hashes.get(key) ?? []) {
      if (entry.expiresAt > this.now()) result[field] = entry.value;
    }
    return result;
  }

  async hashDelete(key: string, field: string) {
    this.hashes.get(key)?.delete(field);
  }

  async ping() {}

  // In-process: never unreachable, so never reconnects.
  onReconnect() {}

  whenConnected() {
    return Promise.resolve(true);
  }

  async close() {
    clearInterval(this.sweeper);
    this.entries.clear();
    this.hashes.clear();
  }
}
