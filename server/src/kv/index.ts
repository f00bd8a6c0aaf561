import { MemoryStore } from './memory.ts';
import { RedisStore, createRedisClient } from './redis.ts';
import type { KeyValueStore } from './store.ts';

export type { HashEntry, KeyValueStore } from './store.ts';
export { claimPayload, StoreUnavailableError } from './store.ts';

export function openKeyValueStore(redisUrl: string | undefined, prefix: string): KeyValueStore {
  return redisUrl ? new RedisStore(createRedisClient(redisUrl, prefix)) : new MemoryStore();
}
