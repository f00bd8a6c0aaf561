import type { KeyValueStore } from '../kv/index.ts';
import { claimPayload } from '../kv/index.ts';
import type { Logger } from '../logger.ts';
import { stepLockKey, type StepLock } from '../domain/plans/stepLocks.ts';

const SWEEP_MS = 2_000;

/**
 * Step locks end by TTL in the shared store, which tells no one; this process watches the
 * locks it saw acquired and reports each one gone without a release.
 */
export class LockExpiryWatcher {
  private readonly watched = new Map<string, { formId: string; lock: StepLock; expiresAtMs: number }>();
  private readonly timer: NodeJS.Timeout;
  private readonly kv: KeyValueStore;
  private readonly logger: Logger;
  private readonly onExpired: (formId: string, lock: StepLock) => void;

  constructor(kv: KeyValueStore, logger: Logger, onExpired: (formId: string, lock: StepLock) => void) {
    this.kv = kv;
    this.logger = logger;
    this.onExpired = onExpired;
    this.timer = setInterval(() => void this.sweep().catch((error: unknown) => this.logger.warn({ err: error }, 'lock sweep failed')), SWEEP_MS);
    this.timer.unref();
  }

  watch(formId: string, lock: StepLock): void {
    this.watched.set(stepLockKey(formId, lock.stepKey), { formId, lock, expiresAtMs: Date.parse(lock.expiresAt) });
  }

  unwatch(formId: string, stepKey: string): void {
    this.watched.delete(stepLockKey(formId, stepKey));
  }

  /** Reads only the locks whose known expiry has passed; a renewed one is watched until its new expiry. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    const due = [...this.watched].filter(([, watched]) => watched.expiresAtMs <= now);
    if (due.length === 0) return;
    const entries = await this.kv.getMany(due.map(([key]) => key));
    due.forEach(([key, watched], index) => {
      const entry = entries[index];
      if (entry && claimPayload(entry.value).owner === watched.lock.lockedBy.userId) {
        watched.expiresAtMs = Date.now() + Math.max(entry.ttlMs, 0);
        watched.lock = { ...watched.lock, expiresAt: new Date(watched.expiresAtMs).toISOString() };
        return;
      }
      this.watched.delete(key);
      this.onExpired(watched.formId, watched.lock);
    });
  }

  stop(): void {
    clearInterval(this.timer);
    this.watched.clear();
  }
}
