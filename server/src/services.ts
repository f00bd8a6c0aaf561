import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { Storage } from './storage/database.ts';
import type { KeyValueStore } from './kv/index.ts';
import type { RateLimits } from './http/rateLimits.ts';
import type { BankCatalog } from './domain/questionBank/bankCatalog.ts';
import type { SessionCache } from './auth/sessionCache.ts';
import type { RecentPlanSteps } from './domain/plans/recentPlanSteps.ts';
import type { LiveDocuments, RealtimeEvents } from './realtime/events.ts';
import type { CollaborationHealth, RealtimeHealth } from '@csp/shared/api/health';

/** The process-level parts every route and domain function may use; built once by `startServer`. */
export interface BaseServices {
  config: Config;
  logger: Logger;
  storage: Storage;
  kv: KeyValueStore;
  rateLimits: RateLimits;
  banks: BankCatalog;
  sessionCache: SessionCache;
  /** What this process last read or wrote of plan steps for their editors (autosaves). */
  recentPlanSteps: RecentPlanSteps;
}

/** With the live parts: events to connected clients, and the collaborative documents. */
export interface Services extends BaseServices {
  events: RealtimeEvents;
  liveDocuments: LiveDocuments;
  /** What this process's realtime gateway and collaboration server report (the System page). */
  liveServers: {
    realtime(): RealtimeHealth;
    collaboration(): Omit<CollaborationHealth, 'status'>;
  };
}
