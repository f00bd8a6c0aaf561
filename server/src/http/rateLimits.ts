import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { KeyValueStore } from '../kv/index.ts';
import { RedisStore } from '../kv/redis.ts';
import type { Logger } from '../logger.ts';
import { tooManyRequests } from '../errors.ts';

interface Limit {
  /** Key prefix in the shared store: `rl:<name>:<key>`. */
  name: string;
  points: number;
  durationSeconds: number;
  /** When the store fails in production: refuse (true) or let the request through. */
  failClosed: boolean;
}

/** The specification's Limits table, plus the export limit of the export issue. */
export const LIMITS = {
  auth: { name: 'auth', points: 20, durationSeconds: 60, failClosed: true },
  save: { name: 'save', points: 30, durationSeconds: 60, failClosed: false },
  formsCreate: { name: 'forms-create', points: 20, durationSeconds: 60, failClosed: true },
  users: { name: 'users', points: 60, durationSeconds: 60, failClosed: true },
  usersWrite: { name: 'users-write', points: 30, durationSeconds: 60, failClosed: true },
  usersCreate: { name: 'users-create', points: 20, durationSeconds: 60, failClosed: true },
  usersBulk: { name: 'users-bulk', points: 10, durationSeconds: 60, failClosed: true },
  usersImport: { name: 'users-import', points: 5, durationSeconds: 60, failClosed: true },
  clientErrors: { name: 'client-errors', points: 10, durationSeconds: 300, failClosed: true },
  export: { name: 'export', points: 10, durationSeconds: 60, failClosed: true },
} as const satisfies Record<string, Limit>;

export type LimitName = keyof typeof LIMITS;

export interface RateLimitOutcome {
  /** Set when the store failed and the request was let through. */
  warning?: string;
}

export class RateLimits {
  private readonly limiters = new Map<LimitName, RateLimiterAbstract>();
  private readonly isProduction: boolean;
  private readonly logger: Logger;

  constructor(kv: KeyValueStore, options: { isProduction: boolean; logger: Logger }) {
    this.isProduction = options.isProduction;
    this.logger = options.logger;
    for (const [key, limit] of Object.entries(LIMITS) as [LimitName, Limit][]) {
      const common = { keyPrefix: `rl:${limit.name}`, points: limit.points, duration: limit.durationSeconds };
      this.limiters.set(
        key,
        kv instanceof RedisStore
          ? new RateLimiterRedis({ ...common, storeClient: kv.client, rejectIfRedisNotReady: true, useRedisPackage: false })
          : new RateLimiterMemory(common),
      );
    }
  }

  /**
   * Counts one request against `limit` for `key`; throws 429 with Retry-After when over.
   * A store failure refuses fail-closed limits in production and lets everything else through.
   */
  async consume(limit: LimitName, key: string): Promise<RateLimitOutcome> {
    try {
      await this.limiters.get(limit)!.consume(key);
      return {};
    } catch (rejection) {
      // Retry-After names the whole window, as the specification shows (60 for the 60-second limits).
      if (rejection instanceof RateLimiterRes) throw tooManyRequests(LIMITS[limit].durationSeconds);
      return this.storeFailed(limit, rejection);
    }
  }

  /**
   * The counter `consume` keeps for `limit` and `key`, for a caller that counts in its own round
   * trip to the store (a step save, with its lock); `judge` then reads the count.
   */
  counter(limit: LimitName, key: string): { key: string; ttlMs: number } {
    return { key: `rl:${LIMITS[limit].name}:${key}`, ttlMs: LIMITS[limit].durationSeconds * 1000 };
  }

  /** A count taken through `counter`: 429 once it passes the limit's points. */
  judge(limit: LimitName, count: number): RateLimitOutcome {
    if (count > LIMITS[limit].points) throw tooManyRequests(LIMITS[limit].durationSeconds);
    return {};
  }

  /** The store could not count: fail-closed limits refuse in production, the rest pass with a warning. */
  storeFailed(limit: LimitName, error: unknown): RateLimitOutcome {
    const rule: Limit = LIMITS[limit];
    this.logger.warn({ err: error, limit }, 'rate-limit store unavailable');
    if (rule.failClosed && this.isProduction) throw tooManyRequests(rule.durationSeconds);
    return { warning: 'Rate limiting is temporarily unavailable' };
  }
}
