import type { KeyValueStore } from '../../kv/index.ts';
import { claimPayload } from '../../kv/index.ts';
import type { UserRow } from '../../storage/rows.ts';

export const stepLockKey = (formId: string, stepKey: string) => `form:${formId}:step:${stepKey}`;

export interface LockHolder {
  userId: string;
  name: string;
  email: string;
  lockedAt: string;
}

export interface StepLock {
  stepKey: string;
  lockedBy: Omit<LockHolder, 'lockedAt'>;
  lockedAt: string;
  expiresAt: string;
}

function toLock(stepKey: string, value: string, ttlMs: number): StepLock {
  const holder = JSON.parse(claimPayload(value).payload) as LockHolder;
  return {
    stepKey,
    lockedBy: { userId: holder.userId, name: holder.name, email: holder.email },
    lockedAt: holder.lockedAt,
    expiresAt: new Date(Date.now() + ttlMs).toISOString(),
  };
}

export type LockAttempt = { acquired: true; refreshed: boolean; lock: StepLock } | { acquired: false; lock: StepLock };

/** Takes (or renews) the caller's lock on a step; another holder's lock is reported, not broken. */
export async function claimStepLock(kv: KeyValueStore, ttlMs: number, formId: string, stepKey: string, user: UserRow): Promise<LockAttempt> {
  const holder: LockHolder = { userId: user.id, name: user.name, email: user.email, lockedAt: new Date().toISOString() };
  const claim = await kv.claim(stepLockKey(formId, stepKey), user.id, JSON.stringify(holder), ttlMs);
  const lock = toLock(stepKey, claim.value, claim.ttlMs);
  return claim.acquired ? { acquired: true, refreshed: claim.refreshed, lock } : { acquired: false, lock };
}

/** Renews the caller's lock while the editor stays open; never takes a free lock. */
export function refreshStepLock(kv: KeyValueStore, ttlMs: number, formId: string, stepKey: string, userId: string): Promise<boolean> {
  return kv.extend(stepLockKey(formId, stepKey), userId, ttlMs);
}

export function releaseStepLock(kv: KeyValueStore, formId: string, stepKey: string, userId: string): Promise<boolean> {
  return kv.release(stepLockKey(formId, stepKey), userId);
}

/** The held locks among a plan's steps. */
export async function listStepLocks(kv: KeyValueStore, formId: string, stepKeys: readonly string[]): Promise<StepLock[]> {
  const entries = await kv.getMany(stepKeys.map((key) => stepLockKey(formId, key)));
  return stepKeys.flatMap((stepKey, index) => {
    const entry = entries[index];
    return entry ? [toLock(stepKey, entry.value, entry.ttlMs)] : [];
  });
}
