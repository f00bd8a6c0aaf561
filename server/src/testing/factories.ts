/**
 * Plans, school years and shares inserted straight into the database (no API call, no rate limit),
 * for tests that need a plan in a given state without walking it there through the routes.
 */
import { eq } from 'drizzle-orm';
import type { StepAnswers } from '@csp/shared';
import { BUNDLED_BANK } from '@csp/shared/bank';
import type { TestServer } from './testServer.ts';
import { planShares, planSteps, plans } from '../storage/schema.ts';
import { newId } from '../storage/ids.ts';
import type { PlanRow } from '../storage/rows.ts';

type PlanFields = Partial<typeof plans.$inferInsert> & Pick<typeof plans.$inferInsert, 'schoolName' | 'schoolYear'>;

let nextYear = 2101;
/** A school year no other plan of this test file has (a school has one plan a year). */
export function freshYear(): string {
  const year = nextYear++;
  return `${year}-${year + 1}`;
}

/**
 * A plan of the bundled question bank (unless `fields` say otherwise) with a row for each of its
 * steps, as a created plan has: empty, or the given answers. Resolves with its id.
 */
export async function insertPlan(server: TestServer, fields: PlanFields, answers: Record<string, StepAnswers> = {}): Promise<string> {
  const db = server.services.storage.db;
  const id = newId();
  await db.insert(plans).values({ id, questionBankVersion: BUNDLED_BANK.version, ...fields });
  await db.insert(planSteps).values(BUNDLED_BANK.steps.map((step) => ({ formId: id, stepKey: step.key, data: answers[step.key] ?? {} })));
  return id;
}

/** A plan's stored row, or undefined once it is deleted. */
export async function planRow(server: TestServer, id: string): Promise<PlanRow | undefined> {
  const [row] = await server.services.storage.db.select().from(plans).where(eq(plans.id, id)).limit(1);
  return row;
}

/** Shares of a plan with users, as sharing stores them. */
export async function insertShares(server: TestServer, shares: (typeof planShares.$inferInsert)[]): Promise<void> {
  await server.services.storage.db.insert(planShares).values(shares);
}
