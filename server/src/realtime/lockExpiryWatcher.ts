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

  private async sweep(): Promise<void> {
    if (this.watched.size === 0) return;
    const keys = [...this.watched.keys()];
    const entries = await this.kv.getMany(keys);
    keys.forEach((key, index) => {
      const watched = this.watched.get(key)!;
      const entry = entries[index];
      if (entry && claimPayload(entry.value).owner === watched.lock.lockedBy.userId) return;
      this.watched.delete(key);
      this.events.toPlan(watched.formId, 'lock', { stepKey: watched.lock.stepKey, state: 'expired', lockedBy: watched.lock.lockedBy });
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.watched.clear();
  }
}
