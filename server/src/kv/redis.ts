import { Redis, type ChainableCommander } from 'ioredis';
import { windowBatcher } from '../batching.ts';
import { StoreUnavailableError, claimValue, type ClaimRequest, type HashEntry, type KeyValueStore, type LockClaim } from './store.ts';

// Claim or refresh in one step: a free key or the same owner (value prefix "owner\n") wins.
// Answers {1 taken | 2 renewed | 0 held by another, the holder's value, its TTL}.
const CLAIM_FUNCTION = `
local function claim(key, owner, value, ttl)
  local current = redis.call('GET', key)
  local prefix = owner .. '\\n'
  if not current then
    redis.call('SET', key, value, 'PX', ttl)
    return {1, value, tonumber(ttl)}
  end
  if string.sub(current, 1, #prefix) == prefix then
    redis.call('PEXPIRE', key, ttl)
    return {2, current, tonumber(ttl)}
  end
  return {0, current, redis.call('PTTL', key)}
end
`;
const CLAIM = `${CLAIM_FUNCTION} return claim(KEYS[1], ARGV[1], ARGV[2], ARGV[3])`;

const EXTEND = `
local current = redis.call('GET', KEYS[1])
local prefix = ARGV[1] .. '\\n'
if current and string.sub(current, 1, #prefix) == prefix then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

const RELEASE = `
local current = redis.call('GET', KEYS[1])
local prefix = ARGV[1] .. '\\n'
if current and string.sub(current, 1, #prefix) == prefix then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

// Counter and its window expiry in one step (the original set them in two calls).
// A counter whose window starts with its first increment.
const INCREMENT_FUNCTION = `
local function increment(key, ttl)
  local value = redis.call('INCR', key)
  if value == 1 then redis.call('PEXPIRE', key, ttl) end
  return value
end
`;
const INCREMENT = `${INCREMENT_FUNCTION} return increment(KEYS[1], ARGV[1])`;
/** A step save's lock and its rate-limit count in one round trip (also measured alone by the benchmarks). */
export const CLAIM_AND_INCREMENT = `${CLAIM_FUNCTION}${INCREMENT_FUNCTION}
local claimed = claim(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
claimed[4] = increment(KEYS[2], ARGV[4])
return claimed`;

// Hash fields expire on their own: each field stores "expiresAtMs\\nvalue".
const HASH_GET_LIVE = `
local now = tonumber(ARGV[1])
local all = redis.call('HGETALL', KEYS[1])
local live = {}
for i = 1, #all, 2 do
  local value = all[i + 1]
  local split = string.find(value, '\\n', 1, true)
  if split and tonumber(string.sub(value, 1, split - 1)) > now then
    table.insert(live, all[i])
    table.insert(live, string.sub(value, split + 1))
  else
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return live
`;

type ScriptedRedis = Redis & {
  cspClaim(key: string, owner: string, value: string, ttlMs: number): Promise<[number, string, number]>;
  cspRelease(key: string, owner: string): Promise<number>;
  cspExtend(key: string, owner: string, ttlMs: number): Promise<number>;
  cspIncrement(key: string, ttlMs: number): Promise<number>;
  cspClaimAndIncrement(
    claimKey: string,
    counterKey: string,
    owner: string,
    value: string,
    claimTtlMs: number,
    counterTtlMs: number,
  ): Promise<[number, string, number, number]>;
  cspHashGetLive(key: string, now: number): Promise<string[]>;
};

type ScriptedPipeline = ChainableCommander & {
  cspClaimAndIncrement(claimKey: string, counterKey: string, owner: string, value: string, claimTtlMs: number, counterTtlMs: number): ScriptedPipeline;
};

interface ClaimCounting {
  claim: ClaimRequest;
  counter: { key: string; ttlMs: number };
}

/** Claims sent in one pipeline at most: a burst beyond it goes out in several writes. */
const CLAIM_BATCH_MAX = 128;

export function createRedisClient(url: string, keyPrefix = ''): Redis {
  const client = new Redis(url, {
    keyPrefix,
    // Fail fast while Redis is down so callers fall back instead of queueing forever.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
    // Commands issued in one turn of the event loop leave in one write: a presence beat renews a
    // hundred step locks, and each command of its own cost a system call and a wake-up of Redis.
    enableAutoPipelining: true,
  });
  // Connection errors reach callers as failed commands (handled there); without a listener
  // ioredis would also print each reconnect attempt.
  client.on('error', () => {});
  return client;
}

const FIRE_AND_FORGET = ['publish', 'subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'] as const;

/**
 * A client for libraries that subscribe, publish and unsubscribe without awaiting (the Socket.IO
 * adapter, the Hocuspocus Redis extension): while Redis is down, or when the client closes before
 * it connected, those calls report to `onError` instead of becoming unhandled rejections, which
 * would end the process. A callback passed to them still hears of the failure; everything else
 * behaves as usual.
 */
export function createPubSubClient(url: string, onError: (error: unknown, command: string) => void): Redis {
  const client = createRedisClient(url);
  // Subscriptions are set up while connecting; queue them until the connection is ready.
  client.options.enableOfflineQueue = true;
  for (const method of FIRE_AND_FORGET) {
    const original = client[method].bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
      original(...args).catch((error: unknown) => {
        onError(error, method);
        return 0;
      });
  }
  return client;
}

export class RedisStore implements KeyValueStore {
  readonly kind = 'redis' as const;
  private readonly redis: ScriptedRedis;
  /**
   * Autosaves' claims made within one batch window go to Redis in one pipeline: one socket write
   * and one read for all of them. Each script still runs on its own, atomically, and answers (or
   * fails) its own save.
   */
  private readonly claimsCounting = windowBatcher<ClaimCounting, { claim: LockClaim; count: number }>((batch) => this.claimAllCounting(batch), CLAIM_BATCH_MAX);

  constructor(redis: Redis) {
    redis.defineCommand('cspClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('cspRelease', { numberOfKeys: 1, lua: RELEASE });
    redis.defineCommand('cspExtend', { numberOfKeys: 1, lua: EXTEND });
    redis.defineCommand('cspIncrement', { numberOfKeys: 1, lua: INCREMENT });
    redis.defineCommand('cspClaimAndIncrement', { numberOfKeys: 2, lua: CLAIM_AND_INCREMENT });
    redis.defineCommand('cspHashGetLive', { numberOfKeys: 1, lua: HASH_GET_LIVE });
    this.redis = redis as ScriptedRedis;
  }

  get client(): Redis {
    return this.redis;
  }

  /** Every failure leaves as one error type, so callers and the HTTP layer can tell an outage from a bug. */
  private async call<T>(operation: (redis: ScriptedRedis) => Promise<T>): Promise<T> {
    try {
      return await operation(this.redis);
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  }

  get(key: string) {
    return this.call((redis) => redis.get(key));
  }

  getMany(keys: string[]) {
    if (keys.length === 0) return Promise.resolve([]);
    return this.call(async (redis) => {
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.get(key).pttl(key);
      const replies = (await pipeline.exec()) ?? [];
      return keys.map((_key, index) => {
        const [getError, value] = replies[index * 2]!;
        const [ttlError, ttl] = replies[index * 2 + 1]!;
        if (getError || ttlError) throw getError ?? ttlError;
        return value === null ? null : { value: value as string, ttlMs: ttl as number };
      });
    });
  }

  set(key: string, value: string, ttlMs?: number) {
    return this.call(async (redis) => {
      if (ttlMs) await redis.set(key, value, 'PX', ttlMs);
      else await redis.set(key, value);
    });
  }

  delete(key: string) {
    return this.call(async (redis) => void (await redis.del(key)));
  }

  claim(key: string, owner: string, payload: string, ttlMs: number): Promise<LockClaim> {
    return this.call(async (redis) => {
      const [outcome, value, ttl] = await redis.cspClaim(key, owner, claimValue(owner, payload), ttlMs);
      return { acquired: outcome > 0, refreshed: outcome === 2, value, ttlMs: ttl };
    });
  }

  extend(key: string, owner: string, ttlMs: number) {
    return this.call(async (redis) => (await redis.cspExtend(key, owner, ttlMs)) === 1);
  }

  release(key: string, owner: string) {
    return this.call(async (redis) => (await redis.cspRelease(key, owner)) === 1);
  }

  increment(key: string, ttlMs: number) {
    return this.call((redis) => redis.cspIncrement(key, ttlMs));
  }

  claimAndIncrement(claim: ClaimRequest, counter: { key: string; ttlMs: number }) {
    return this.claimsCounting.load({ claim, counter });
  }

  private claimAllCounting(batch: readonly ClaimCounting[]) {
    return this.call(async (redis) => {
      const pipeline = redis.pipeline() as ScriptedPipeline;
      for (const { claim, counter } of batch) {
        pipeline.cspClaimAndIncrement(claim.key, counter.key, claim.owner, claimValue(claim.owner, claim.payload), claim.ttlMs, counter.ttlMs);
      }
      const replies = (await pipeline.exec()) ?? [];
      return batch.map((_request, index) => {
        const [error, reply] = replies[index] ?? [new Error('no reply')];
        if (error) return new StoreUnavailableError(error);
        const [outcome, value, ttl, count] = reply as [number, string, number, number];
        return { claim: { acquired: outcome > 0, refreshed: outcome === 2, value, ttlMs: ttl }, count };
      });
    });
  }

  hashSet(key: string, field: string, value: string, ttlMs: number) {
    return this.hashSetMany([{ key, field, value, ttlMs }]);
  }

  hashSetMany(entries: HashEntry[]) {
    if (entries.length === 0) return Promise.resolve();
    return this.call(async (redis) => {
      const now = Date.now();
      const pipeline = redis.pipeline();
      for (const { key, field, value, ttlMs } of entries) pipeline.hset(key, field, `${now + ttlMs}\n${value}`).pexpire(key, ttlMs * 2);
      for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
    });
  }

  hashGetAll(key: string) {
    return this.call(async (redis) => {
      const flat = await redis.cspHashGetLive(key, Date.now());
      const result: Record<string, string> = {};
      for (let i = 0; i < flat.length; i += 2) result[flat[i]!] = flat[i + 1]!;
      return result;
    });
  }

  hashDelete(key: string, field: string) {
    return this.call(async (redis) => void (await redis.hdel(key, field)));
  }

  ping() {
    return this.call(async (redis) => void (await redis.ping()));
  }

  // Every (re)connection: the first connect too, for a process that started during an outage.
  onReconnect(listener: () => void) {
    this.redis.on('ready', listener);
  }

  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.redis.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (connected: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(connected);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.on('ready', onReady);
    });
  }

  async close() {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
