import type { CollaborationHealth, RealtimeHealth } from '@csp/shared/api/health';

/** What this process's realtime gateway and collaboration server report (the System page). */
export interface LiveServers {
  realtime(): RealtimeHealth;
  collaboration(): Omit<CollaborationHealth, 'status'>;
}

/**
 * The realtime gateway and the collaboration server of this process. Both work alone on one
 * process; with Redis configured they share with other processes through it, so they are degraded
 * while Redis does not answer (or the gateway's adapter is not connected).
 */
export function liveServerHealth(
  { liveServers }: { liveServers: LiveServers },
  redis: 'ok' | 'error' | 'not configured',
): { realtime: RealtimeHealth; collaboration: CollaborationHealth } {
  const realtime = liveServers.realtime();
  const collaboration = liveServers.collaboration();
  const sharedBroken = (sharing: 'redis' | 'in-process') => sharing === 'redis' && redis === 'error';
  return {
    realtime: { ...realtime, status: realtime.status === 'ok' && !sharedBroken(realtime.sharing) ? 'ok' : 'degraded' },
    collaboration: { ...collaboration, status: sharedBroken(collaboration.sharing) ? 'degraded' : 'ok' },
  };
}
