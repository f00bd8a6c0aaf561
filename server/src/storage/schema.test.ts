import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { Storage } from './database.ts';
import { openTestStorage } from '../testing/testDatabase.ts';
import { newId } from './ids.ts';
import { plans, planSteps, schoolYearSettings, users, questionBankVersions, sessions } from './schema.ts';
import { ensureBundledBank } from '../domain/questionBank/ensureBundledBank.ts';

let storage: Storage;

beforeAll(async () => {
  storage = await openTestStorage();
});
afterAll(() => storage?.close());

/** The database refuses the write (whatever the driver's error wrapping). */
async function rejects(write: Promise<unknown>, constraint: string) {
  const error = await write.then(
    () => null,
    (e: unknown) => e as Error & { cause?: Error },
  );
  expect(error, `expected ${constraint} to refuse the write`).not.toBeNull();
  expect(`${error!.message} ${error!.cause?.message ?? ''}`).toMatch(new RegExp(constraint));
}

const user = (overrides: Partial<typeof users.$inferInsert> = {}) => ({
  id: newId(),
  email: `u${newId()}@example.org`,
  name: 'A User',
  level: 1,
  schoolName: 'PS 1',
  ...overrides,
});

describe('schema constraints', () => {
  it('migrations are applied idempotently and create every table', async () => {
    const tables = await storage.rows<{ table_name: string }>(
      // information_schema is the same on PGlite and PostgreSQL
      (await import('drizzle-orm')).sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'answer_revisions',
      'audit_logs',
      'client_errors',
      'collab_documents',
      'collab_updates',
      'comment_replies',
      'comments',
      'daily_mail_runs',
      'deadline_reminders',
      'mail_messages',
      'mail_outbox',
      'notifications',
      'plan_shares',
      'plan_steps',
      'plan_versions',
      'plans',
      'question_bank_versions',
      'school_year_settings',
      'sessions',
      'users',
    ]);
  });

  it('users: unique lowercase e-mail, level 1 to 5, 24-hex id', async () => {
    await storage.db.insert(users).values(user({ email: 'same@example.org' }));
    await rejects(storage.db.insert(users).values(user({ email: 'same@example.org' })), 'users_email_unique');
    await rejects(storage.db.insert(users).values(user({ email: 'Upper@example.org' })), 'users_email_lowercase');
    await rejects(storage.db.insert(users).values(user({ level: 0 })), 'users_level_range');
    await rejects(storage.db.insert(users).values(user({ level: 6 })), 'users_level_range');
    await rejects(storage.db.insert(users).values(user({ id: 'not-an-id' })), 'users_id_hex');
  });

  it('plans: one per school and year, a valid year label, a known status', async () => {
    const base = { schoolName: 'PS 7', schoolYear: '2026-2027' };
    await storage.db.insert(plans).values({ id: newId(), ...base });
    await rejects(storage.db.insert(plans).values({ id: newId(), ...base }), 'plans_school_year_unique');
    await rejects(storage.db.insert(plans).values({ id: newId(), schoolName: 'PS 8', schoolYear: '2026/27' }), 'plans_school_year_label');
    await rejects(
      storage.db.insert(plans).values({ id: newId(), schoolName: 'PS 9', schoolYear: '2026-2027', status: 'finished' as never }),
      'plan_status|invalid input value',
    );
  });

  it('plan steps belong to a plan and go with it', async () => {
    const id = newId();
    await storage.db.insert(plans).values({ id, schoolName: 'PS 10', schoolYear: '2026-2027' });
    await storage.db.insert(planSteps).values({ formId: id, stepKey: 'attendancePlan', data: { att_x: 'y' } });
    await rejects(storage.db.insert(planSteps).values({ formId: id, stepKey: 'attendancePlan' }), 'plan_steps_pkey|duplicate key');
    await rejects(storage.db.insert(planSteps).values({ formId: newId(), stepKey: 'x' }), 'foreign key|plan_steps_form_id');
    await storage.db.delete(plans).where(eq(plans.id, id));
    expect(await storage.db.select().from(planSteps).where(eq(planSteps.formId, id))).toEqual([]);
  });

  it('school-year settings are unique per year', async () => {
    const row = { schoolYear: '2030-2031', termStart: '2030-07-01', termEnd: '2031-06-30' };
    await storage.db.insert(schoolYearSettings).values(row);
    await rejects(storage.db.insert(schoolYearSettings).values(row), 'school_year_settings_pkey|duplicate key');
  });

  it('at most one published and one draft bank version', async () => {
    await ensureBundledBank(storage.db);
    await ensureBundledBank(storage.db);
    await rejects(storage.db.insert(questionBankVersions).values({ version: 2, status: 'published', steps: [] }), 'bank_one_published');
    await storage.db.insert(questionBankVersions).values({ version: 2, status: 'draft', steps: [] });
    await rejects(storage.db.insert(questionBankVersions).values({ version: 3, status: 'draft', steps: [] }), 'bank_one_draft');
  });

  it('sessions go with their user', async () => {
    const owner = user();
    await storage.db.insert(users).values(owner);
    await storage.db.insert(sessions).values({ id: 'a'.repeat(64), userId: owner.id, expiresAt: new Date(Date.now() + 1000) });
    await storage.db.delete(users).where(eq(users.id, owner.id));
    expect(await storage.db.select().from(sessions).where(eq(sessions.userId, owner.id))).toEqual([]);
  });
});
