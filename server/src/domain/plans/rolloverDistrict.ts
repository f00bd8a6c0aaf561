import { asc, eq, inArray } from 'drizzle-orm';
import type { QuestionBank } from '@csp/shared';
import type { DomainServices } from '../domainServices.ts';
import { planSteps, planVersions, plans, schoolYearSettings } from '../../storage/schema.ts';
import { copiedVersionOf } from '../history/planVersions.ts';
import { invalidInput, conflict, notFound } from '../../errors.ts';
import { recordAudit, recordAudits, type Caller } from '../audit/recordAudit.ts';
import { newId } from '../../storage/ids.ts';
import { ensureYearSettings } from '../schoolYears/ensureYearSettings.ts';
import { announceFills, buildPlanCopy, fillPlanFromSource, type YearCopyTarget } from './planCopy.ts';
import type { PlanRow, StepRow } from '../../storage/rows.ts';

const BATCH_SIZE = 200;
const LOCK_KEY = 'rollover:lock';
const LOCK_TTL_MS = 15 * 60_000;
const rolloverProgressKey = (sourceYear: string, targetYear: string) => `rollover:progress:${sourceYear}:${targetYear}`;
/** The finished run's full report, kept as long as its progress (read back with a `done` progress only). */
const rolloverResultKey = (sourceYear: string, targetYear: string) => `rollover:result:${sourceYear}:${targetYear}`;
const KEEP_MS = 24 * 3600_000;

export interface RolloverResult {
  success: true;
  sourceYear: string;
  targetYear: string;
  considered: number;
  created: { school: string; formId: string }[];
  skipped: { school: string; existingFormId: string }[];
  filled: { school: string; formId: string }[];
  errors: { school: string; error: string }[];
  archivedYear: string;
}

interface RolloverProgress {
  state: 'running' | 'done' | 'failed';
  sourceYear: string;
  targetYear: string;
  total: number;
  processed: number;
  created: number;
  skipped: number;
  filled: number;
  errors: number;
  updatedAt: string;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * District rollover (Super Admin): every school's plan of the source year is copied into the
 * target year in batches; schools that already have a target plan are skipped (or filled with
 * `force`); a school's failure is reported without stopping the others; then the source year is
 * archived. Running it again creates nothing. Progress is kept in the shared store and pushed
 * to the caller as `rollover` events.
 */
export async function rolloverDistrict(
  services: DomainServices,
  caller: Caller,
  input: { sourceYear: string; targetYear: string; force: boolean },
): Promise<RolloverResult> {
  const { sourceYear, targetYear, force } = input;
  if (sourceYear === targetYear) throw invalidInput('The source and target years must differ');
  const { kv, banks, events } = services;
  const db = services.storage.db;
  const owner = `${caller.auth.user.id}:${Date.now()}`;
  /** Groups the run's audit records: one per created plan, and the run's own. */
  const runId = newId();
  if (!(await kv.claim(LOCK_KEY, owner, '', LOCK_TTL_MS)).acquired) throw conflict('A rollover is already running');

  const progress: RolloverProgress = {
    state: 'running',
    sourceYear,
    targetYear,
    total: 0,
    processed: 0,
    created: 0,
    skipped: 0,
    filled: 0,
    errors: 0,
    updatedAt: '',
  };
  const report = async (state: RolloverProgress['state'] = 'running') => {
    Object.assign(progress, { state, updatedAt: new Date().toISOString() });
    await kv.set(rolloverProgressKey(sourceYear, targetYear), JSON.stringify(progress), KEEP_MS).catch(() => {});
    await events.publish({ type: 'district.rolloverProgress', userId: caller.auth.actor.id, progress: { ...progress } });
  };

  try {
    // An earlier run's report never stands for this one.
    await kv.delete(rolloverResultKey(sourceYear, targetYear));
    const settings = await ensureYearSettings(db, banks, targetYear);
    if (settings.archived) throw invalidInput(`The ${targetYear} school year is archived`);
    const target: YearCopyTarget = {
      schoolYear: targetYear,
      bankVersion: settings.questionBankVersion,
      bank: await banks.resolve(settings.questionBankVersion),
    };

    const sources = await db.select().from(plans).where(eq(plans.schoolYear, sourceYear)).orderBy(asc(plans.schoolName));
    const existing = new Map((await db.select().from(plans).where(eq(plans.schoolYear, targetYear))).map((plan) => [plan.schoolName, plan]));
    const stepsByPlan = new Map<string, StepRow[]>();
    if (sources.length) {
      const rows = await db
        .select()
        .from(planSteps)
        .where(inArray(planSteps.formId, db.select({ id: plans.id }).from(plans).where(eq(plans.schoolYear, sourceYear))));
      for (const row of rows) stepsByPlan.set(row.formId, [...(stepsByPlan.get(row.formId) ?? []), row]);
    }
    const sourceBanks = new Map<number, QuestionBank | null>();
    const bankOf = async (plan: PlanRow) => {
      if (!plan.questionBankVersion) return null;
      if (!sourceBanks.has(plan.questionBankVersion)) sourceBanks.set(plan.questionBankVersion, await banks.version(plan.questionBankVersion));
      return sourceBanks.get(plan.questionBankVersion)!;
    };

    const result: RolloverResult = {
      success: true,
      sourceYear,
      targetYear,
      considered: sources.length,
      created: [],
      skipped: [],
      filled: [],
      errors: [],
      archivedYear: sourceYear,
    };
    progress.total = sources.length;
    await report();

    for (let start = 0; start < sources.length; start += BATCH_SIZE) {
      const batch = sources.slice(start, start + BATCH_SIZE);
      const copies: { school: string; copy: ReturnType<typeof buildPlanCopy> }[] = [];
      for (const source of batch) {
        const current = existing.get(source.schoolName);
        try {
          if (current && force) {
            const sourceBank = await bankOf(source);
            const fills = await db.transaction((tx) =>
              fillPlanFromSource(tx, current, stepsByPlan.get(source.id) ?? [], sourceBank, target, caller.auth.actor.id),
            );
            announceFills(services, current.id, caller.auth.actor, fills);
            result.filled.push({ school: source.schoolName, formId: current.id });
          } else if (current) {
            result.skipped.push({ school: source.schoolName, existingFormId: current.id });
          } else {
            copies.push({ school: source.schoolName, copy: buildPlanCopy(source, stepsByPlan.get(source.id) ?? [], await bankOf(source), target) });
          }
        } catch (error) {
          result.errors.push({ school: source.schoolName, error: message(error) });
        }
      }
      await insertCopies(services, caller, { runId, sourceYear, targetYear }, copies, result);
      Object.assign(progress, {
        processed: Math.min(sources.length, start + batch.length),
        created: result.created.length,
        skipped: result.skipped.length,
        filled: result.filled.length,
        errors: result.errors.length,
      });
      await report();
    }

    await ensureYearSettings(db, banks, sourceYear);
    await events.transaction(async (tx, record) => {
      await tx.update(schoolYearSettings).set({ archived: true, updatedAt: new Date() }).where(eq(schoolYearSettings.schoolYear, sourceYear));
      await recordAudit(tx, caller, {
        action: 'district.rollover',
        targetType: 'schoolYear',
        targetId: sourceYear,
        summary: {
          runId,
          sourceYear,
          targetYear,
          force,
          considered: result.considered,
          created: result.created.length,
          skipped: result.skipped.length,
          filled: result.filled.length,
          errors: result.errors.length,
        },
      });
      record({ type: 'district.rolledOver', sourceYear, targetYear });
    });
    await kv.set(rolloverResultKey(sourceYear, targetYear), JSON.stringify(result), KEEP_MS).catch(() => {});
    await report('done');
    return result;
  } catch (error) {
    await report('failed');
    throw error;
  } finally {
    await kv.release(LOCK_KEY, owner).catch(() => {});
  }
}

/**
 * One transaction per batch, with an audit record per created plan carrying the run's id; a failing
 * batch is retried school by school so one bad row names itself.
 */
async function insertCopies(
  services: DomainServices,
  caller: Caller,
  run: { runId: string; sourceYear: string; targetYear: string },
  copies: { school: string; copy: ReturnType<typeof buildPlanCopy> }[],
  result: RolloverResult,
) {
  if (copies.length === 0) return;
  const db = services.storage.db;
  const insert = (items: typeof copies) =>
    db.transaction(async (tx) => {
      await tx.insert(plans).values(items.map((item) => item.copy.plan));
      await tx.insert(planSteps).values(items.flatMap((item) => item.copy.steps));
      await tx.insert(planVersions).values(items.map((item) => copiedVersionOf(item.copy.plan.id, item.copy.steps, caller.auth.actor)));
      await recordAudits(
        tx,
        caller,
        items.map(({ copy: { plan } }) => ({
          action: 'plan.rollover',
          targetType: 'plan',
          targetId: plan.id,
          summary: {
            ...run,
            sourceFormId: plan.copiedFromId,
            after: { schoolName: plan.schoolName, schoolYear: plan.schoolYear, status: plan.status ?? 'draft', reviewFlags: plan.needsUpdate?.length ?? 0 },
          },
        })),
      );
    });
  try {
    await insert(copies);
    for (const { school, copy } of copies) result.created.push({ school, formId: copy.plan.id });
  } catch {
    for (const item of copies) {
      try {
        await insert([item]);
        result.created.push({ school: item.school, formId: item.copy.plan.id });
      } catch (error) {
        result.errors.push({ school: item.school, error: message(error) });
      }
    }
  }
}

/** The progress of a running (or the last) rollover of these years; a finished one adds its report. */
export async function rolloverStatus({ kv }: DomainServices, sourceYear: string, targetYear: string) {
  const [progress, result] = await Promise.all([kv.get(rolloverProgressKey(sourceYear, targetYear)), kv.get(rolloverResultKey(sourceYear, targetYear))]);
  if (!progress) throw notFound('No rollover for these years');
  const parsed = JSON.parse(progress) as RolloverProgress;
  return { progress: parsed, ...(parsed.state === 'done' && result ? { result: JSON.parse(result) as unknown } : {}) };
}
