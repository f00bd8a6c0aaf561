/**
 * Step locks: the first save takes the lock, another user's save gets 423 and changes nothing,
 * only the holder unlocks. (Expiry and refresh: lockExpiry.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { HARBOR, PRINCIPAL_HARBOR, RIVERSIDE, STEP_CAST, SUPERADMIN } from '../../testing/demoNames.ts';
import { lockOf, locksOf, formIdOf, planPath, readStep, saveBody, stepPath, stepRow, whoAmI } from '../../testing/plans.ts';

describe('step locks (default 300 s TTL)', () => {
  let server: TestServer;
  let principal: HttpClient;
  let principalTab2: HttpClient;
  let admin: HttpClient;
  let coordinator: HttpClient;
  let teacher: HttpClient;
  let otherPrincipal: HttpClient;
  let principalUser: { id: string; name: string; email: string };
  let adminUser: { id: string; name: string; email: string };
  let formId: string;

  beforeAll(async () => {
    server = await startTestServer();
    [principal, principalTab2, admin, coordinator, teacher, otherPrincipal] = await signInAll(server.url, STEP_CAST);
    principalUser = await whoAmI(principal);
    adminUser = await whoAmI(admin);
    formId = await formIdOf(principal, HARBOR);
  });
  afterAll(() => server?.stop());

  it('a plan starts with no locks, and reading a step takes none', async () => {
    await readStep(principal, formId, 2);
    expect(await locksOf(principal, formId)).toEqual([]);
  });

  it('the first save takes the lock: listed with lockedBy, lockedAt, expiresAt and isCurrentUser', async () => {
    const response = await principal.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: '2025-09-02' }));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const mine = await locksOf(principal, formId);
    expect(mine).toHaveLength(1);
    const lock = mine[0]!;
    expect(lock).toMatchObject({
      stepKey: 'childAbuseIntervention',
      lockedBy: { userId: principalUser.id, name: principalUser.name, email: PRINCIPAL_HARBOR },
      isCurrentUser: true,
    });
    expect(Object.keys(lock.lockedBy).sort()).toEqual(['email', 'name', 'userId']);
    const lockedAt = Date.parse(lock.lockedAt);
    const expiresAt = Date.parse(lock.expiresAt);
    expect(Number.isNaN(lockedAt)).toBe(false);
    expect(expiresAt).toBeGreaterThan(lockedAt);
    expect(expiresAt - lockedAt).toBeLessThanOrEqual(300_000 + 5_000);
    // Other viewers see the same lock, not as theirs.
    const seenByAdmin = (await locksOf(admin, formId))[0]!;
    expect(seenByAdmin).toMatchObject({ stepKey: lock.stepKey, lockedBy: lock.lockedBy, lockedAt: lock.lockedAt, isCurrentUser: false });
    expect((await locksOf(coordinator, formId))[0]).toMatchObject({ stepKey: lock.stepKey, isCurrentUser: false });
    // Another tab of the holder is the holder too.
    expect((await locksOf(principalTab2, formId))[0]!.isCurrentUser).toBe(true);
  });

  it('the holder keeps saving (from any tab) without losing the lock', async () => {
    const before = (await lockOf(principal, formId, 2))!;
    const response = await principalTab2.put(stepPath(formId, 2), saveBody({ cai_parentEducation: 'Workshops each fall' }));
    expect(response.status).toBe(200);
    const after = (await lockOf(principal, formId, 2))!;
    expect(after.lockedBy.userId).toBe(principalUser.id);
    expect(after.lockedAt).toBe(before.lockedAt);
  });

  it("another user's save gets 423 with the holder and changes nothing", async () => {
    const rowBefore = await stepRow(server, formId, 'childAbuseIntervention');
    const lockBefore = (await lockOf(principal, formId, 2))!;
    const response = await admin.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: 'admin was here', cai_studentEducation: 'also admin' }));
    expect(response.status, JSON.stringify(response.body)).toBe(423);
    expect(response.body).toMatchObject({
      error: 'Step is locked',
      lockedBy: { userId: principalUser.id, name: principalUser.name, email: PRINCIPAL_HARBOR },
    });
    expect(Object.keys(response.body.lockedBy).sort()).toEqual(['email', 'name', 'userId']);
    expect(Date.parse(response.body.expiresAt)).toBeGreaterThan(Date.parse(lockBefore.lockedAt));
    expect(await stepRow(server, formId, 'childAbuseIntervention')).toEqual(rowBefore);
    const read = await readStep(admin, formId, 2);
    expect(read.stepData.data.cai_staffTrainingDate).toBe('2025-09-02');
    expect(read.stepData.data.cai_studentEducation).toBeUndefined();
    // The lock is still the principal's (the refused save did not take or break it).
    const lockAfter = (await lockOf(admin, formId, 2))!;
    expect(lockAfter.lockedBy.userId).toBe(principalUser.id);
    expect(lockAfter.lockedAt).toBe(lockBefore.lockedAt);
  });

  it('the lock covers one step of one plan: other steps and plans stay free', async () => {
    const other = await admin.put(stepPath(formId, 3), saveBody({ sh_trainingDate: 'admin on step 3' }));
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    const locks = await locksOf(principal, formId);
    expect(locks.map((l) => [l.stepKey, l.lockedBy.userId, l.isCurrentUser]).sort()).toEqual(
      [
        ['childAbuseIntervention', principalUser.id, true],
        ['sexualHarassment', adminUser.id, false],
      ].sort(),
    );
    // Its own save on step 3 by the principal is now refused in turn.
    const refused = await principal.put(stepPath(formId, 3), saveBody({ sh_trainingDate: 'principal on step 3' }));
    expect(refused.status).toBe(423);
    expect(refused.body.lockedBy).toEqual({ userId: adminUser.id, name: adminUser.name, email: SUPERADMIN });
    expect((await readStep(admin, formId, 3)).stepData.data.sh_trainingDate).toBe('admin on step 3');
    // The Riverside plan's step 2 is a different lock.
    const riverside = await formIdOf(admin, RIVERSIDE);
    expect((await admin.put(stepPath(riverside, 2), saveBody({ cai_staffTrainingDate: 'riverside' }))).status).toBe(200);
    expect((await admin.post(stepPath(riverside, 2, '/unlock'))).body).toEqual({ success: true, released: true });
    expect((await admin.post(stepPath(formId, 3, '/unlock'))).status).toBe(200);
  });

  it("a non-holder's unlock of a held lock is 403 and the lock stays", async () => {
    const before = (await lockOf(principal, formId, 2))!;
    const response = await admin.post(stepPath(formId, 2, '/unlock'));
    expect(response.status).toBe(403);
    expect(typeof response.body.error).toBe('string');
    const after = (await lockOf(principal, formId, 2))!;
    expect(after.lockedBy.userId).toBe(principalUser.id);
    expect(after.lockedAt).toBe(before.lockedAt);
    expect((await admin.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: 'still locked' }))).status).toBe(423);
  });

  it("after the holder's unlock the other user's save succeeds and takes the lock", async () => {
    const unlock = await principalTab2.post(stepPath(formId, 2, '/unlock'));
    expect(unlock.status).toBe(200);
    expect(unlock.body).toEqual({ success: true, released: true });
    expect(await lockOf(principal, formId, 2)).toBeUndefined();

    const save = await admin.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: 'admin after unlock' }));
    expect(save.status, JSON.stringify(save.body)).toBe(200);
    expect((await readStep(principal, formId, 2)).stepData.data.cai_staffTrainingDate).toBe('admin after unlock');
    const lock = (await lockOf(principal, formId, 2))!;
    expect(lock.lockedBy).toEqual({ userId: adminUser.id, name: adminUser.name, email: SUPERADMIN });
    expect(lock.isCurrentUser).toBe(false);
    // Now the principal is the one refused.
    const refused = await principal.put(stepPath(formId, 2), saveBody({ cai_staffTrainingDate: 'principal again' }));
    expect(refused.status).toBe(423);
    expect(refused.body.lockedBy.userId).toBe(adminUser.id);
    expect((await stepRow(server, formId, 'childAbuseIntervention'))!.data.cai_staffTrainingDate).toBe('admin after unlock');
    expect((await admin.post(stepPath(formId, 2, '/unlock'))).body).toEqual({ success: true, released: true });
  });

  it('unlocking a free step is harmless', async () => {
    expect(await lockOf(principal, formId, 5)).toBeUndefined();
    const response = await principal.post(stepPath(formId, 5, '/unlock'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, released: false });
    expect(await lockOf(principal, formId, 5)).toBeUndefined();
  });

  it('a refused save (400) takes no lock', async () => {
    const response = await principal.put(stepPath(formId, 4, ''), saveBody({ rfa_staffTrainingDate: 42 }));
    expect(response.status).toBe(400);
    expect(await lockOf(principal, formId, 4)).toBeUndefined();
  });

  it('locks are visible to same-school staff of levels 2-4 and the Super Admin only', async () => {
    for (const client of [principal, coordinator, admin]) expect((await client.get(planPath(formId, '/locks'))).status).toBe(200);
    for (const client of [teacher, otherPrincipal]) {
      const response = await client.get(planPath(formId, '/locks'));
      expect(response.status).toBe(403);
      expect(typeof response.body.error).toBe('string');
    }
    // Nor can they unlock or save.
    expect((await principal.put(stepPath(formId, 6), saveBody({ att_coordinatorName: 'locked by principal' }))).status).toBe(200);
    for (const client of [teacher, otherPrincipal, coordinator]) {
      expect((await client.post(stepPath(formId, 6, '/unlock'))).status).toBe(403);
      expect((await client.put(stepPath(formId, 6), saveBody({ att_coordinatorName: 'intruder' }))).status).toBe(403);
    }
    expect((await lockOf(principal, formId, 6))!.lockedBy.userId).toBe(principalUser.id);
    expect((await stepRow(server, formId, 'attendancePlan'))!.data.att_coordinatorName).toBe('locked by principal');
  });
});
