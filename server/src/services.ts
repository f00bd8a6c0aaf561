import type { RateLimits } from './http/rateLimits.ts';
import type { SessionCache } from './auth/sessionCache.ts';
import type { BaseDomainServices, DomainServices } from './domain/domainServices.ts';
import type { RealtimeEvents } from './realtime/events.ts';
import type { LiveDocuments } from './collab/liveDocuments.ts';
import type { LiveServers } from './domain/system/liveServerHealth.ts';

/** The process-level parts every route, the realtime gateway and the collaboration server may use; built once by `startServer`. */
export interface BaseServices extends BaseDomainServices {
  rateLimits: RateLimits;
  sessionCache: SessionCache;
}

/** With the live parts: events to connected clients, and the collaborative documents. */
export interface Services extends BaseServices, DomainServices {
  realtime: RealtimeEvents;
  liveDocuments: LiveDocuments;
  /** What this process's realtime gateway and collaboration server report (the System page). */
  liveServers: LiveServers;
}
