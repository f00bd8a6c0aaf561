/**
 * The plan list and the plan read answer one question the same way: for every signed-in person,
 * `GET /api/forms` (every page) lists exactly the plans `GET /api/forms/:id` lets them open. Plans
 * with random owners, principals, assignees, e-mail shares and user shares (view or edit, whole plan
 * or some sections) are written straight into the database, in schools of the demo district and
 * elsewhere; the seed is printed (`LIST_SCOPE_SEED=<seed>` replays it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_BANK } from '@csp/shared/bank';
import { startTestServer, type TestServer } from '../../testing/testServer.ts';
import { signInAll } from '../../testing/signIn.ts';
import type { HttpClient } from '../../testing/httpClient.ts';
import { DISTRICT, HARBOR, RIVERSIDE } from '../../testing/demoNames.ts';
import { allUsers } from '../../testing/users.ts';
import { Random, seedFromEnv } from '../../testing/random.ts';
import { planShares, plans } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import type { UserRow } from '../../storage/rows.ts';

const PLANS = 24;
const PEOPLE = [
  'superadmin@example.org',
  'principal.harbor@example.org',
  'principal.riverside@example.org',
  'ap.harbor@example.org',
  'ap.riverside@example.org',
  'coordinator.harbor@example.org',
  'coordinator.riverside@example.org',
  'teacher.harbor@example.org',
  'teacher.riverside@example.org',
] as const;

let server: TestServer;
let people: Map<string, HttpClient>;
const random = new Random(seedFromEnv('LIST_SCOPE_SEED'));

beforeAll(async () => {
  server = await startTestServer();
  const clients = await signInAll(server.url, PEOPLE);
  people = new Map(PEOPLE.map((email, index) => [email, clients[index]!]));
  const everyone: UserRow[] = await allUsers(server);
  const maybe = <T>(value: () => T, p = 0.3): T | null => (random.chance(p) ? value() : null);
  const email = () => random.pick(everyone).email;
  for (let index = 0; index < PLANS; index++) {
    const id = newId();
    // A school year of its own: a school has one plan a year.
    const first = 2040 + index;
    await server.services.storage.db.insert(plans).values({
      id,
      schoolName: random.pick([HARBOR, RIVERSIDE, DISTRICT, `Elsewhere School ${index}`]),
      schoolYear: `${first}-${first + 1}`,
      userId: maybe(() => random.pick(everyone).id),
      principalEmail: maybe(email),
      assignedTo: maybe(email, 0.2),
      sharedWithEmails: random.chance(0.3) ? [email()] : [],
      questionBankVersion: BUNDLED_BANK.version,
    });
    const shared = new Set<string>();
    for (let shares = random.int(3); shares > 0; shares--) {
      const user = random.pick(everyone);
      if (shared.has(user.id)) continue;
      shared.add(user.id);
      const sections = random.chance(0.5) ? [random.pick(BUNDLED_BANK.steps).key] : [];
      await server.services.storage.db.insert(planShares).values({ formId: id, userId: user.id, permission: random.pick(['view', 'edit'] as const), sections });
    }
  }
  console.log(`listScope: seed ${random.seed} (replay with LIST_SCOPE_SEED=${random.seed}), ${PLANS} plans`);
});
afterAll(() => server?.stop());

async function listed(client: HttpClient): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const response = await client.get(`/api/forms?limit=200&page=${page}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const forms = response.body.forms as { _id: string }[];
    ids.push(...forms.map((form) => form._id));
    if (forms.length < 200) return ids.sort();
  }
}

describe('the plan list', () => {
  it('lists, for every person, exactly the plans they may open', async () => {
    const everyPlan = await listed(people.get('superadmin@example.org')!);
    expect(everyPlan.length).toBeGreaterThanOrEqual(PLANS);
    for (const email of PEOPLE) {
      const client = people.get(email)!;
      const opens: string[] = [];
      for (const id of everyPlan) {
        const response = await client.get(`/api/forms/${id}`);
        expect([200, 403, 404], `${email} reading ${id}: ${response.status}`).toContain(response.status);
        if (response.status === 200) opens.push(id);
      }
      expect(await listed(client), `${email} (seed ${random.seed})`).toEqual(opens.sort());
    }
  });
});
