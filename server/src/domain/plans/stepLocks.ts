import type { KeyValueStore } from '../../kv/index.ts';
import { claimPayload } from '../../kv/index.ts';
import type { LockClaim } from '../../kv/store.ts';
import type { UserRow } from '../../storage/rows.ts';

export const stepLockKey = (formId: string, stepKey: string) => `form:${formId}:step:${stepKey}`;

interface LockHolder {
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

type LockUser = Pick<UserRow, 'id' | 'name' | 'email'>;

const holderOf = (user: LockUser): string =>
  JSON.stringify({ userId: user.id, name: user.name, email: user.email, lockedAt: new Date().toISOString() } satisfies LockHolder);

const attemptOf = (stepKey: string, claim: LockClaim): LockAttempt => {
  const lock = toLock(stepKey, claim.value, claim.ttlMs);
  return claim.acquired ? { acquired: true, refreshed: claim.refreshed, lock } : { acquired: false, lock };
};

/**
 * Takes (or renews) the caller's lock on a step, and counts the save against its rate limit, in
 * one round trip to the shared store; another holder's lock is reported, not broken.
 */
export async function claimStepLockCounting(
  kv: KeyValueStore,
  ttlMs: number,
  formId: string,
  stepKey: string,
  user: LockUser,
  counter: { key: string; ttlMs: number },
): Promise<{ attempt: LockAttempt; count: number }> {
  const { claim, count } = await kv.claimAndIncrement({ key: stepLockKey(formId, stepKey), owner: user.id, payload: holderOf(user), ttlMs }, counter);
  return { attempt: attemptOf(stepKey, claim), count };
}

/** Takes (or renews) the user's lock on a step; another holder's lock is reported, not broken. */
export async function claimStepLock(kv: KeyValueStore, ttlMs: number, formId: string, stepKey: string, user: LockUser): Promise<LockAttempt> {
  return attemptOf(stepKey, await kv.claim(stepLockKey(formId, stepKey), user.id, holderOf(user), ttlMs));
}

/** Renews the caller's lock while the editor stays open; never takes a free lock. */
export function refreshStepLock(kv: KeyValueStore, ttlMs: number, formId: string, stepKey: string, userId: string): Promise<boolean> {
  return kv.extend(stepLockKey(formId, stepKey), userId, ttlMs);
}

export function releaseStepLock(kv: KeyValueStore, formId: string, stepKey: string, userId: string): Promise<boolean> {
  return kv.release(stepLockKey(formId, stepKey), userId);
}

/** Releases the user's lock on a step if they hold it, and returns it (null when they held none). */
export async function releaseStepLockOf(kv: KeyValueStore, formId: string, stepKey: string, userId: string): Promise<StepLock | null> {
  const [held] = await listStepLocks(kv, formId, [stepKey]);
  if (held?.lockedBy.userId !== userId) return null;
  return (await releaseStepLock(kv, formId, stepKey, userId)) ? held : null;
}

/** The held locks among a plan's steps. */
export async function listStepLocks(kv: KeyValueStore, formId: string, stepKeys: readonly string[]): Promise<StepLock[]> {
  const entries = await kv.getMany(stepKeys.map((key) => stepLockKey(formId, key)));
  return stepKeys.flatMap((stepKey, index) => {
    const entry = entries[index];
    return entry ? [toLock(stepKey, entry.value, entry.ttlMs)] : [];
  });
}
