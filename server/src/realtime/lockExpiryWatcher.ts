import type { KeyValueStore } from '../kv/index.ts';
import { claimPayload } from '../kv/index.ts';
import type { Logger } from '../logger.ts';
import { stepLockKey, type StepLock } from '../domain/plans/stepLocks.ts';
import type { RealtimeEvents } from './events.ts';

const SWEEP_MS = 2_000;

/**
 * Step locks end by TTL in the shared store, which tells no one; this process watches the
 * locks it saw acquired and announces `expired` when one is gone without a release.
 */
export class LockExpiryWatcher {
  private readonly watched = new Map<string, { formId: string; lock: StepLock }>();
  private readonly timer: NodeJS.Timeout;
  private readonly kv: KeyValueStore;
  private readonly events: RealtimeEvents;
  private readonly logger: Logger;

  constructor(kv: KeyValueStore, events: RealtimeEvents, logger: Logger) {
    this.kv = kv;
    this.events = events;
    this.logger = logger;
    this.timer = setInterval(() => void this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'lock sweep failed')), SWEEP_MS);
    this.timer.unref();
  }

  acquired(formId: string, lock: StepLock): void {
    this.watched.set(stepLockKey(formId, lock.stepKey), { formId, lock });
    this.events.toPlan(formId, 'lock', { stepKey: lock.stepKey, state: 'acquired', lockedBy: lock.lockedBy, expiresAt: lock.expiresAt });
  }

  released(formId: string, stepKey: string, lockedBy: StepLock['lockedBy']): void {
    this.watched.delete(stepLockKey(formId, stepKey));
    this.events.toPlan(formId, 'lock', { stepKey, state: 'released', lockedBy });
  }

  /** Reads only the locks whose known expiry has passed; a renewed one is watched until its new expiry. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    const due = [...this.watched.entries()].filter(([, watched]) => Date.parse(watched.lock.expiresAt) <= now);
    if (due.length === 0) return;
    const entries = await this.kv.getMany(due.map(([key]) => key));
    due.forEach(([key, watched], index) => {
      const entry = entries[index];
      if (entry && claimPayload(entry.value).owner === watched.lock.lockedBy.userId) {
        watched.lock = { ...watched.lock, expiresAt: new Date(Date.now() + Math.max(entry.ttlMs, 0)).toISOString() };
        return;
      }
      this.watched.delete(key);
      this.events.toPlan(watched.formId, 'lock', { stepKey: watched.lock.stepKey, state: 'expired', lockedBy: watched.lock.lockedBy });
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.watched.clear();
  }
}
