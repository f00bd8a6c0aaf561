/**
 * Step lock expiry on a server of its own with STEP_LOCK_TTL_SECONDS=2: the lock frees itself after
 * the TTL unless the holder's open editor (GET step, presence heartbeat) refreshes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signIn } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { HARBOR, PRINCIPAL_HARBOR, SUPERADMIN } from '../../testing/demoNames.ts';
import { lockOf, formIdOf, planPath, readStep, saveBody, stepPath, stepRow, whoAmI } from '../../testing/plans.ts';
import { pause, waitFor } from '../../testing/wait.ts';

/** Polls (bounded) until the step's lock is gone; the TTL is the only thing that can free it here. */
async function waitForLockGone(client: HttpClient, formId: string, stepNumber: number): Promise<void> {
  await waitFor(`the lock on step ${stepNumber} to lapse`, async () => !(await lockOf(client, formId, stepNumber)), { intervalMs: 150 });
}

describe('step lock expiry (STEP_LOCK_TTL_SECONDS=2)', () => {
  const TTL_MS = 2_000;
  let server: TestServer;
  let principal: HttpClient;
  let admin: HttpClient;
  let principalUser: { id: string };
  let formId: string;

  beforeAll(async () => {
    server = await startTestServer({ STEP_LOCK_TTL_SECONDS: '2' });
    [principal, admin] = await Promise.all([signIn(server.url, PRINCIPAL_HARBOR), signIn(server.url, SUPERADMIN)]);
    principalUser = await whoAmI(principal);
    formId = await formIdOf(principal, HARBOR);
  });
  afterAll(() => server?.stop());

  it('reports the configured TTL in expiresAt', async () => {
    expect((await principal.put(stepPath(formId, 8), saveBody({ sis_participates: false }))).status).toBe(200);
    const lock = (await lockOf(principal, formId, 8))!;
    expect(Date.parse(lock.expiresAt) - Date.parse(lock.lockedAt)).toBeLessThanOrEqual(TTL_MS + 1_000);
    expect((await principal.post(stepPath(formId, 8, '/unlock'))).body.released).toBe(true);
  });

  it("frees the step after the TTL: the other user's save then succeeds", async () => {
    expect((await principal.put(stepPath(formId, 5), saveBody({ sp_meetingSchedule: 'by principal' }))).status).toBe(200);
    const refused = await admin.put(stepPath(formId, 5), saveBody({ sp_meetingSchedule: 'by admin' }));
    expect(refused.status).toBe(423);
    expect(refused.body.lockedBy.userId).toBe(principalUser.id);

    await waitForLockGone(admin, formId, 5);
    const save = await admin.put(stepPath(formId, 5), saveBody({ sp_meetingSchedule: 'by admin' }));
    expect(save.status, JSON.stringify(save.body)).toBe(200);
    expect((await readStep(principal, formId, 5)).stepData.data.sp_meetingSchedule).toBe('by admin');
    expect((await lockOf(principal, formId, 5))!.lockedBy.email).toBe(SUPERADMIN);
    expect((await admin.post(stepPath(formId, 5, '/unlock'))).body.released).toBe(true);
  });

  for (const [how, refresh] of [
    ['GET step', (client: HttpClient, id: string) => client.get(stepPath(id, 6))],
    ['editors/register', (client: HttpClient, id: string) => client.post(planPath(id, '/editors/register'), { stepKey: 'attendancePlan' })],
  ] as const) {
    it(`an open editor (${how} by the holder) keeps the lock past its original expiry`, async () => {
      expect((await principal.put(stepPath(formId, 6), saveBody({ att_coordinatorName: `by principal (${how})` }))).status).toBe(200);
      const taken = (await lockOf(principal, formId, 6))!;
      expect(taken.lockedBy.userId).toBe(principalUser.id);
      const lockedAt = Date.parse(taken.lockedAt);

      // Refresh well within the TTL until two TTLs have passed since the lock was taken.
      while (Date.now() - lockedAt < 2 * TTL_MS) {
        const response = await refresh(principal, formId);
        expect(response.status).toBe(200);
        await pause(200);
      }
      const kept = (await lockOf(admin, formId, 6))!;
      expect(kept).toBeDefined();
      // The same lock (not a new one), still the principal's.
      expect(kept.lockedAt).toBe(taken.lockedAt);
      expect(kept.lockedBy.userId).toBe(principalUser.id);
      const refused = await admin.put(stepPath(formId, 6), saveBody({ att_coordinatorName: 'by admin' }));
      expect(refused.status).toBe(423);

      // Another user's reads never refresh someone else's lock: once the holder stops, it expires.
      const stoppedAt = Date.now();
      while (Date.now() - stoppedAt < 500) {
        await refresh(admin, formId);
        await pause(100);
      }
      await waitForLockGone(admin, formId, 6);
      expect((await admin.put(stepPath(formId, 6), saveBody({ att_coordinatorName: 'by admin' }))).status).toBe(200);
      expect((await stepRow(server, formId, 'attendancePlan'))!.data.att_coordinatorName).toBe('by admin');
      expect((await admin.post(stepPath(formId, 6, '/unlock'))).body.released).toBe(true);
    });
  }
});
