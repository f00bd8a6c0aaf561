/**
 * The shared key-value store: locks, presence, caches and deny entries live here.
 * Redis when configured (several server processes share it), otherwise in-process maps.
 */
export interface LockClaim {
  acquired: boolean;
  /** Acquired by an owner that already held it (the TTL was renewed). */
  refreshed: boolean;
  /** The holder's value after the call (the caller's when acquired). */
  value: string;
  /** Milliseconds left on the holder's claim. */
  ttlMs: number;
}

export interface ClaimRequest {
  key: string;
  owner: string;
  payload: string;
  ttlMs: number;
}

export interface HashEntry {
  key: string;
  field: string;
  value: string;
  ttlMs: number;
}

export interface KeyValueStore {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  /** Values with their remaining lifetime in ms (-1: no expiry); null for missing keys. */
  getMany(keys: string[]): Promise<({ value: string; ttlMs: number } | null)[]>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;
  /** Atomic: claims the key when free, or renews its TTL (keeping its value) when `owner` already holds it. */
  claim(key: string, owner: string, value: string, ttlMs: number): Promise<LockClaim>;
  /** Atomic: renews the TTL only when `owner` holds the key. */
  extend(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Atomic: deletes the key only when `owner` holds it. */
  release(key: string, owner: string): Promise<boolean>;
  /** Atomic increment; the window's expiry is set by the first increment. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** `claim` and `increment` in one round trip (a step save's lock and its rate-limit count). */
  claimAndIncrement(claim: ClaimRequest, counter: { key: string; ttlMs: number }): Promise<{ claim: LockClaim; count: number }>;
  /** Fields of a hash whose entries each expire on their own. */
  hashSet(key: string, field: string, value: string, ttlMs: number): Promise<void>;
  /** Many `hashSet`s in one round trip (periodic heartbeats of every open connection). */
  hashSetMany(entries: HashEntry[]): Promise<void>;
  hashGetAll(key: string): Promise<Record<string, string>>;
  hashDelete(key: string, field: string): Promise<void>;
  ping(): Promise<void>;
  /** Runs `listener` each time the store is reachable again after an outage (its keys may be gone). */
  onReconnect(listener: () => void): void;
  /** Resolves true once the store answers, or false after `timeoutMs` (the store keeps retrying on its own). */
  whenConnected(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The shared store could not answer (Redis down or restarting): callers degrade or answer 503. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`shared store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** A claimed key's value is the owner, a newline, then the caller's payload. */
export function claimValue(owner: string, payload: string): string {
  return `${owner}\n${payload}`;
}

export function claimPayload(value: string): { owner: string; payload: string } {
  const split = value.indexOf('\n');
  return split < 0 ? { owner: value, payload: '' } : { owner: value.slice(0, split), payload: value.slice(split + 1) };
}
