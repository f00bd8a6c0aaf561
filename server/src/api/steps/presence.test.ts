/**
 * Presence: POST /api/forms/:id/editors/register { stepKey } is a heartbeat; GET editors lists one
 * entry per e-mail (several tabs of one person are one editor) with stepKey and lastSeen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { HARBOR, PRINCIPAL_HARBOR, PRINCIPAL_RIVERSIDE, RIVERSIDE, STEP_CAST, SUPERADMIN } from '../../testing/demoNames.ts';
import { formIdOf, planPath, whoAmI } from '../../testing/plans.ts';
import { pause } from '../../testing/wait.ts';
import type { Editor } from '@csp/shared/api/forms';

let server: TestServer;
let tab1: HttpClient;
let tab2: HttpClient;
let admin: HttpClient;
let coordinator: HttpClient;
let teacher: HttpClient;
let otherPrincipal: HttpClient;
let formId: string;

beforeAll(async () => {
  server = await startTestServer();
  [tab1, tab2, admin, coordinator, teacher, otherPrincipal] = await signInAll(server.url, STEP_CAST);
  formId = await formIdOf(tab1, HARBOR);
});
afterAll(() => server?.stop());

async function editorsOf(client: HttpClient, id = formId): Promise<Editor[]> {
  const { status, body } = await client.get(planPath(id, '/editors'));
  expect(status, JSON.stringify(body)).toBe(200);
  return body.editors as Editor[];
}

const register = (client: HttpClient, body: unknown, id = formId) => client.post(planPath(id, '/editors/register'), body);

describe('presence', () => {
  it('starts empty', async () => {
    expect(await editorsOf(tab1)).toEqual([]);
  });

  it('a heartbeat lists the editor with userId, name, email, stepKey and lastSeen', async () => {
    const me = await whoAmI(tab1);
    const response = await register(tab1, { stepKey: 'attendancePlan' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.success).toBe(true);
    expect(response.body.editor).toMatchObject({ userId: me.id, name: me.name, email: PRINCIPAL_HARBOR, stepKey: 'attendancePlan' });
    const editors = await editorsOf(tab1);
    expect(editors).toHaveLength(1);
    expect(editors[0]).toEqual({ userId: me.id, name: me.name, email: PRINCIPAL_HARBOR, stepKey: 'attendancePlan', lastSeen: expect.any(String) });
    expect(new Date(editors[0]!.lastSeen).toISOString()).toBe(editors[0]!.lastSeen);
    expect(response.body.editors).toEqual(editors);
  });

  it('registering twice, or from a second tab, keeps one entry per e-mail (the latest step)', async () => {
    const first = (await editorsOf(tab1))[0]!;
    await pause(5);
    expect((await register(tab1, { stepKey: 'attendancePlan' })).status).toBe(200);
    let editors = await editorsOf(tab2);
    expect(editors).toHaveLength(1);
    expect(Date.parse(editors[0]!.lastSeen)).toBeGreaterThanOrEqual(Date.parse(first.lastSeen));

    expect((await register(tab2, { stepKey: 'temporaryHousing' })).status).toBe(200);
    editors = await editorsOf(tab1);
    expect(editors).toHaveLength(1);
    expect(editors[0]).toMatchObject({ email: PRINCIPAL_HARBOR, stepKey: 'temporaryHousing' });

    // Both tabs at once.
    const both = await Promise.all([register(tab1, { stepKey: 'attendancePlan' }), register(tab2, { stepKey: 'attendancePlan' })]);
    for (const response of both) expect(response.status).toBe(200);
    editors = await editorsOf(tab1);
    expect(editors).toHaveLength(1);
    expect(editors[0]!.stepKey).toBe('attendancePlan');
  });

  it('lists each person once, whoever may see presence', async () => {
    expect((await register(admin, { stepKey: 'suicidePrevention' })).status).toBe(200);
    expect((await register(coordinator, {})).status).toBe(200);
    expect((await register(coordinator, { stepKey: null })).status).toBe(200);
    for (const viewer of [tab1, admin, coordinator]) {
      const editors = await editorsOf(viewer);
      expect(editors.map((e) => e.email).sort()).toEqual(['coordinator.harbor@example.org', PRINCIPAL_HARBOR, SUPERADMIN].sort());
      const byEmail = Object.fromEntries(editors.map((e) => [e.email, e]));
      expect(byEmail[PRINCIPAL_HARBOR]!.stepKey).toBe('attendancePlan');
      expect(byEmail[SUPERADMIN]!.stepKey).toBe('suicidePrevention');
      expect(byEmail['coordinator.harbor@example.org']!.stepKey).toBeNull();
      for (const editor of editors) expect(Number.isNaN(Date.parse(editor.lastSeen))).toBe(false);
    }
  });

  it('presence is per plan', async () => {
    const riverside = await formIdOf(admin, RIVERSIDE);
    expect(await editorsOf(admin, riverside)).toEqual([]);
    expect((await register(otherPrincipal, { stepKey: 'counselingPlan' }, riverside)).status).toBe(200);
    expect((await editorsOf(admin, riverside)).map((e) => e.email)).toEqual([PRINCIPAL_RIVERSIDE]);
    expect((await editorsOf(admin)).map((e) => e.email)).not.toContain(PRINCIPAL_RIVERSIDE);
  });

  it('refuses users without presence rights (403) and bad step keys (404/400), changing nothing', async () => {
    const before = await editorsOf(admin);
    for (const client of [teacher, otherPrincipal]) {
      for (const response of [await client.get(planPath(formId, '/editors')), await register(client, { stepKey: 'attendancePlan' })]) {
        expect(response.status).toBe(403);
        expect(typeof response.body.error).toBe('string');
      }
    }
    const unknownStep = await register(tab1, { stepKey: 'principalLetter' });
    expect(unknownStep.status).toBe(404);
    expect(typeof unknownStep.body.error).toBe('string');
    for (const body of [
      { stepKey: 5 },
      { stepKey: '1attendance' },
      { stepKey: 'attendance-plan' },
      { stepKey: 'attendancePlan', extra: true },
      [],
      'attendancePlan',
    ]) {
      const response = await register(tab1, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    const after = await editorsOf(admin);
    expect(after.map(({ email, stepKey }) => ({ email, stepKey }))).toEqual(before.map(({ email, stepKey }) => ({ email, stepKey })));
  });
});
