/**
 * Benchmark 9: answer history at district size (issue 31). Storage should grow with the work, not
 * with keystrokes, and history reads should stay quick when the district's whole year is stored.
 *
 * 1. A school year of editing on a few plans, through a real server process on PostgreSQL: each
 *    plan has 10 people (its principal and nine staff, each with an edit share on a few steps) and a
 *    few hundred editing sessions. A session opens a step (GET) and autosaves it through the real
 *    step-save route (PUT /api/forms/:id/step/:n, the step's full answers, its revision, merge) as
 *    the web client does every ~3 s of typing: text grows by a few words a save, a table by a cell,
 *    a choice is one click; some sessions rewrite a sentence. Half the plans begin empty (a new
 *    school), half as a copy of last year's answered plan (as a rollover makes them). Along the way
 *    the plan is submitted, taken under review, returned, resubmitted and approved (versions).
 * 2. Sessions are separated by simulated pauses: the revision grouping compares a write's wall-clock
 *    time with the answer's latest revision (5-minute pause, 30-minute burst), and a benchmark cannot
 *    wait minutes. After a session, its plan's history rows (revisions' started_at / updated_at,
 *    versions' and audit records' created_at) are moved back by the pause, by SQL: to the next
 *    write it is exactly as if that much time had passed. Some sessions follow another at once (a
 *    colleague picks up the same answer within minutes): no pause, so bursts of two people overlap.
 *    The per-person save limit (30 a minute) counts real minutes, so a person's counter is cleared
 *    when a session starts (minutes apart in simulated time).
 * 3. Rows and bytes per plan in answer_revisions, plan_versions and audit_logs (answer.*), and the
 *    extrapolation to a district's year. Then the simulated plans' rows are copied by SQL to make
 *    the district (1,600 plans by default), so tables and indexes are district-sized, and history
 *    reads are timed: one answer's, the whole plan's (page 1 of 50), the versions list, one version.
 *
 * Prints figures; asserts nothing on time. Live co-editing is not driven here: a live burst is
 * recorded as the same kind of row (one revision naming its authors).
 *
 *   BENCH_HISTORY_PLANS=4 BENCH_HISTORY_SESSIONS=300 BENCH_HISTORY_DISTRICT=1600 BENCH_HISTORY_READS=300
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { currentSchoolYear, type Step } from '@csp/shared';
import { BANK, insertAnsweredPlans, insertSessions, insertUsers, type UserRow } from './fixtures.ts';
import { QUICK, REDIS_URL, ROOT } from './config.ts';
import { createDatabase, insertRows, pg, type PgQueryable } from './postgres.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { round, roundSummary, summarize } from './stats.ts';
import { serverEnv, type BenchSession } from './servers.ts';
import { sleep } from './time.ts';
import { sampleStepAnswers } from '../../server/src/seed/sampleAnswers.ts';
import { newId } from '../../server/src/storage/ids.ts';
import { startServerProcess } from '../../server/src/testing/serverProcess.ts';

const PLANS = Number(process.env.BENCH_HISTORY_PLANS ?? (QUICK ? 2 : 4));
const SESSIONS = Number(process.env.BENCH_HISTORY_SESSIONS ?? (QUICK ? 60 : 300));
const DISTRICT = Number(process.env.BENCH_HISTORY_DISTRICT ?? (QUICK ? 200 : 1_600));
const READS = Number(process.env.BENCH_HISTORY_READS ?? (QUICK ? 60 : 300));
const PEOPLE_PER_PLAN = 10;
/** A school year of sessions: the pauses between them add up to about this. */
const YEAR_MS = 300 * 24 * 3600_000;
/** Share of sessions that follow the one before at once, by another person on the same answer. */
const HANDOFF = 0.15;
const READ_GOAL_MS = 100;
/** The district: 1,600 schools, a plan each a year. */
const DISTRICT_SCHOOLS = 1_600;

interface Redis {
  del(...keys: string[]): Promise<number>;
  quit(): Promise<unknown>;
}
const Redis = createRequire(path.join(ROOT, 'server/package.json'))('ioredis') as new (url: string) => Redis;

/** A small deterministic generator (mulberry32), so runs type the same year. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Random = ReturnType<typeof random>;

const WORDS = (
  'students staff families attendance counselor support plan school meeting review weekly monthly team ' +
  'guidance referral outreach training safety procedures classroom teachers parents community services ' +
  'program follow-up data progress goals intervention schedule liaison coordinator notices calls letters ' +
  'home languages grade level health wellness mentoring workshop resources partners records check-in'
).split(' ');

/** About `chars` characters of words, as typed in ~3 s. */
function typed(rng: Random, chars: number): string {
  let text = '';
  while (text.length < chars) text += `${rng.pick(WORDS)} `;
  return rng.chance(0.2) ? `${text.trimEnd()}. ` : text;
}

type TableAnswer = { headers: string[]; rows: string[][] };
type Answers = Record<string, unknown>;

/** One autosave's change to an answer, as a person typing for ~3 s would make it. */
function edit(rng: Random, question: Step['questions'][number], current: unknown, sample: unknown, rewrite: boolean): unknown {
  switch (question.type) {
    case 'text': {
      const text = typeof current === 'string' ? current : '';
      // Short answers: a name, a date, a title; past ~60 characters a person retypes it.
      return text.length > 60 ? typed(rng, 12).trim() : `${text}${typed(rng, 8)}`.trimStart();
    }
    case 'textarea': {
      let text = typeof current === 'string' ? current : '';
      // A rewrite takes a sentence out first; a long answer is edited, not grown without end.
      if ((rewrite || text.length > 1_500) && text.length > 80) text = text.slice(0, text.lastIndexOf('. ', text.length - 40) + 2 || text.length - 60);
      return `${text}${typed(rng, rng.int(20, 45))}`;
    }
    case 'table': {
      const base = (sample ?? { headers: ['Name', 'Title', 'Contact'], rows: [] }) as TableAnswer;
      const table: TableAnswer =
        current && typeof current === 'object' && 'rows' in current ? structuredClone(current as TableAnswer) : { headers: base.headers, rows: [] };
      // One cell per autosave: fill the last row's next empty cell, or start a row.
      const last = table.rows.at(-1);
      const empty = last?.findIndex((cell) => cell === '') ?? -1;
      if (last && empty >= 0) last[empty] = typed(rng, rng.int(6, 20)).trim();
      else if (table.rows.length >= 8) table.rows[rng.int(0, table.rows.length - 1)]![rng.int(0, table.headers.length - 1)] = typed(rng, 12).trim();
      else table.rows.push(table.headers.map((_, i) => (i === 0 ? typed(rng, 8).trim() : '')));
      return table;
    }
    case 'select': {
      // A click that changes the answer (the same value again is no change, and no revision).
      const options = ((question as { options?: { value: string }[] }).options ?? []).map((option) => option.value).filter((value) => value !== current);
      return options.length ? rng.pick(options) : `${String(current)} (other)`;
    }
    case 'yesno':
      return typeof current === 'boolean' ? !current : rng.chance(0.7);
    default:
      return typeof current === 'boolean' ? !current : (sample ?? true);
  }
}

interface Person {
  id: string;
  email: string;
  name: string;
  session: BenchSession;
  /** Step keys this person may edit (the principal: all). */
  steps: string[];
}

interface PlanRun {
  formId: string;
  school: string;
  copied: boolean;
  principal: Person;
  people: Person[];
  saves: number;
  sessions: number;
  handoffs: number;
  errors: Record<string, number>;
  /** Simulated time the pauses added up to. */
  simulatedDays: number;
}

await runBenchmark('history', 'Answer history: storage per plan for a year of editing, and history reads at district size', async (result: BenchResult) => {
  const database = await createDatabase('history');
  const prefix = redisPrefix('history');
  const redis = new Redis(REDIS_URL);
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  const pool = new pg.Pool({ connectionString: database.url, max: 6 });
  pool.on('error', () => {});
  try {
    server = await startServerProcess(serverEnv(database.url, prefix));
    const base = server.url;
    const call = async (method: string, url: string, who: BenchSession, body?: unknown) => {
      const started = performance.now();
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { cookie: who.cookie, origin: base, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, ms: performance.now() - started, bytes: text.length };
    };
    const expectOk = async (what: string, response: Promise<{ status: number; body: any }>) => {
      const answer = await response;
      if (answer.status !== 200) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };

    // People: a Super Admin (reviews, reads the district), and per plan a principal and nine staff.
    const year = currentSchoolYear();
    const lastYear = year.replace(/^(\d{4})-(\d{4})$/, (_, a: string, b: string) => `${Number(a) - 1}-${Number(b) - 1}`);
    const adminRow: UserRow = { id: newId(), email: 'superadmin@bench.example.org', name: 'District Admin', level: 5, school: 'District Office' };
    const schools = Array.from({ length: PLANS }, (_, i) => `History School ${String(i + 1).padStart(2, '0')}`);
    const userRows: UserRow[] = [adminRow];
    const rowsOf = schools.map((school, p) => {
      const principal: UserRow = { id: newId(), email: `principal.h${p + 1}@bench.example.org`, name: `Principal H${p + 1}`, level: 4, school };
      const staff: UserRow[] = Array.from({ length: PEOPLE_PER_PLAN - 1 }, (_, s) => ({
        id: newId(),
        email: `staff.h${p + 1}.${s + 1}@bench.example.org`,
        name: `Staff H${p + 1}.${s + 1}`,
        level: 3,
        school,
      }));
      userRows.push(principal, ...staff);
      return { principal, staff };
    });
    await insertUsers(pool, userRows);
    const sessions = await insertSessions(
      pool,
      userRows.map((user) => user.id),
    );
    const sessionOf = new Map(userRows.map((user, i) => [user.id, sessions[i]!]));
    const admin = sessionOf.get(adminRow.id)!;

    // Plans: half new (empty), half copied from last year's answered plan by the duplicate route.
    const typedSteps = BANK.steps.filter((step) => step.questions.some((q) => q.type !== 'checkbox'));
    const plans: PlanRun[] = [];
    for (const [p, school] of schools.entries()) {
      const { principal, staff } = rowsOf[p]!;
      const copied = p % 2 === 1;
      let formId: string;
      if (copied) {
        const [last] = await insertAnsweredPlans(pool, {
          label: `Last ${school}`,
          count: 1,
          schoolYear: lastYear,
          ownerIds: [principal.id],
          principalEmails: [principal.email],
        });
        await pool.query(`update plans set school_name = $1, status = 'approved' where id = $2`, [school, last!.id]);
        formId = (await expectOk('duplicate', call('POST', `/api/forms/${last!.id}/duplicate`, admin, { schoolYear: year }))).formId;
      } else {
        formId = (await expectOk('create', call('POST', '/api/forms', admin, { schoolName: school, schoolYear: year, initialOwnerEmail: principal.email })))
          .formId;
      }
      // Each staff member edits 2–4 sections; every section has someone, some have two.
      const rng = random(1_000 + p);
      const people: Person[] = [];
      for (const [s, member] of staff.entries()) {
        const steps = new Set<string>([typedSteps[s % typedSteps.length]!.key, typedSteps[(s + 9) % typedSteps.length]!.key]);
        while (steps.size < rng.int(2, 4)) steps.add(rng.pick(typedSteps).key);
        await expectOk('share', call('POST', '/api/admin/forms/share', admin, { formId, userIds: [member.id], permissions: 'edit', sections: [...steps] }));
        people.push({ id: member.id, email: member.email, name: member.name, session: sessionOf.get(member.id)!, steps: [...steps] });
      }
      const principalPerson: Person = {
        id: principal.id,
        email: principal.email,
        name: principal.name,
        session: sessionOf.get(principal.id)!,
        steps: typedSteps.map((step) => step.key),
      };
      plans.push({
        formId,
        school,
        copied,
        principal: principalPerson,
        people: [principalPerson, ...people],
        saves: 0,
        sessions: 0,
        handoffs: 0,
        errors: {},
        simulatedDays: 0,
      });
    }
    log(`fixture: ${PLANS} plans (${plans.filter((p) => p.copied).length} copied from last year), ${PEOPLE_PER_PLAN} people each`);

    const stepNumberOf = new Map(BANK.steps.map((step, index) => [step.key, index + 1]));
    const stepOf = new Map(BANK.steps.map((step) => [step.key, step]));

    /** The plan's history moved back by `ms`: to the next write, that much time has passed. */
    const pause = async (plan: PlanRun, ms: number) => {
      const interval = `${Math.round(ms)} milliseconds`;
      await pool.query(`update answer_revisions set started_at = started_at - $2::interval, updated_at = updated_at - $2::interval where form_id = $1`, [
        plan.formId,
        interval,
      ]);
      await pool.query(`update plan_versions set created_at = created_at - $2::interval where form_id = $1`, [plan.formId, interval]);
      await pool.query(`update audit_logs set created_at = created_at - $2::interval where target_id = $1`, [plan.formId, interval]);
      plan.simulatedDays += ms / 86_400_000;
    };
    /** History is written after the save's commit: wait until the step's last write is in it. */
    const historyWritten = async (plan: PlanRun, stepKey: string, stepRevision: number) => {
      for (let i = 0; i < 200; i++) {
        const { rows } = await pool.query(`select 1 from answer_revisions where form_id = $1 and step_key = $2 and step_revision >= $3 limit 1`, [
          plan.formId,
          stepKey,
          stepRevision,
        ]);
        if (rows.length) return;
        await sleep(10);
      }
      plan.errors['history not written within 2 s'] = (plan.errors['history not written within 2 s'] ?? 0) + 1;
    };
    const decide = async (plan: PlanRun, who: BenchSession, body: Record<string, unknown>) => {
      await expectOk(`${JSON.stringify(body)} on ${plan.school}`, call('PUT', `/api/forms/${plan.formId}`, who, body));
      await pause(plan, 2 * 86_400_000);
    };

    /** A copied plan is attested by its principal before each submission. */
    const attestIfCopied = async (plan: PlanRun) => {
      if (plan.copied) await expectOk('attest', call('POST', `/api/forms/${plan.formId}/attest`, plan.principal.session, { name: plan.principal.name }));
    };

    /** One person's session on one step: open it, then autosave every "3 s" while typing 1–3 answers. */
    const session = async (plan: PlanRun, rng: Random, person: Person, stepKey: string, questionIds: string[], rewrite: boolean) => {
      const step = stepOf.get(stepKey)!;
      const stepNumber = stepNumberOf.get(stepKey)!;
      const stepUrl = `/api/forms/${plan.formId}/step/${stepNumber}`;
      await redis.del(`${prefix}rl:save:${person.id}:${plan.formId}`);
      const opened = await expectOk('open step', call('GET', stepUrl, person.session));
      const data: Answers = { ...opened.stepData.data };
      let revisionCount: number = opened.revisionCount;
      const sample = sampleStepAnswers(step, plan.school) as Answers;
      let budget = rng.int(4, 25);
      for (const questionId of questionIds) {
        const question = step.questions.find((q) => q.id === questionId)!;
        const clicks = ['select', 'yesno', 'checkbox'].includes(question.type);
        const saves = clicks ? 1 : Math.max(1, Math.min(budget, rng.int(3, 14)));
        budget -= saves;
        for (let s = 0; s < saves; s++) {
          data[questionId] = edit(rng, question, data[questionId], sample[questionId], rewrite && s === 0);
          const saved = await call('PUT', stepUrl, person.session, { stepData: { data }, revisionCount, mergeStrategy: 'merge' });
          plan.saves++;
          if (saved.status !== 200) {
            plan.errors[String(saved.status)] = (plan.errors[String(saved.status)] ?? 0) + 1;
            continue;
          }
          revisionCount = saved.body.revisionCount;
        }
        if (budget <= 0) break;
      }
      // Leaving the step, as the editor does: the next person may take it.
      await call('POST', `${stepUrl}/unlock`, person.session);
      await historyWritten(plan, stepKey, revisionCount);
      plan.sessions++;
      return { stepKey, questionId: questionIds[0]! };
    };

    /** A plan's year: sessions, pauses, and its decisions at 60 % (submit, review, return) and at the end. */
    const schoolYearOf = async (plan: PlanRun, index: number) => {
      const rng = random(7_919 * (index + 1));
      const pauseMean = YEAR_MS / SESSIONS;
      type Visit = { stepKey: string; questionId: string; personId: string };
      let previous = null as Visit | null;
      for (let n = 0; n < SESSIONS; n++) {
        if (n === Math.floor(SESSIONS * 0.6)) {
          await attestIfCopied(plan);
          await decide(plan, plan.principal.session, { action: 'submit' });
          await decide(plan, admin, { action: 'review', status: 'under_review' });
          await decide(plan, admin, { action: 'review', status: 'rejected', comment: 'Please name the attendance team and add the spring workshops.' });
        }
        // A colleague who may edit the same step picks up the same answer at once, or someone starts after a pause.
        const last = previous;
        const colleagues: Person[] = last ? plan.people.filter((p) => p.id !== last.personId && p.steps.includes(last.stepKey)) : [];
        if (last && colleagues.length && rng.chance(HANDOFF)) {
          const person: Person = rng.pick(colleagues);
          await session(plan, rng, person, last.stepKey, [last.questionId], false);
          plan.handoffs++;
          previous = { stepKey: last.stepKey, questionId: last.questionId, personId: person.id };
        } else {
          if (n > 0) await pause(plan, pauseMean * (0.05 + 1.9 * rng.next()));
          // The principal in about one session of five, staff in the rest.
          const person = rng.chance(0.2) ? plan.principal : rng.pick(plan.people.slice(1));
          const step = stepOf.get(rng.pick(person.steps))!;
          const editable = step.questions.filter((q) => q.type !== 'checkbox' || rng.chance(0.3));
          const questionIds = Array.from({ length: rng.int(1, 3) }, () => rng.pick(editable).id);
          const done = await session(plan, rng, person, step.key, [...new Set(questionIds)], rng.chance(0.15));
          previous = { ...done, personId: person.id };
        }
      }
      // Resubmitted, reviewed and approved.
      await attestIfCopied(plan);
      await decide(plan, plan.principal.session, { action: 'submit' });
      await decide(plan, admin, { action: 'review', status: 'under_review' });
      await decide(plan, admin, { action: 'review', status: 'approved' });
    };

    const simulationStarted = performance.now();
    // Plans run side by side (each its sessions in turn), as schools work at once.
    await Promise.all(plans.map((plan, index) => schoolYearOf(plan, index)));
    const simulationSeconds = round((performance.now() - simulationStarted) / 1000, 1);
    log(`simulated ${plans.reduce((n, p) => n + p.sessions, 0)} sessions, ${plans.reduce((n, p) => n + p.saves, 0)} autosaves in ${simulationSeconds} s`);

    // What a plan's year left behind. The simulated pauses rewrote every history row of a plan
    // at each pause (hundreds of times over): compacted, the tables hold what the app wrote.
    await pool.query('vacuum full analyze answer_revisions, plan_versions, audit_logs');
    const perPlan = await measurePlans(
      pool,
      plans.map((plan) => plan.formId),
    );
    const tableBytes = await tableSizes(pool);
    const planRows = plans.map((plan) => {
      const m = perPlan.get(plan.formId)!;
      return {
        school: plan.school,
        start: plan.copied ? 'copy of last year' : 'empty',
        sessions: plan.sessions,
        handoffs: plan.handoffs,
        autosaves: plan.saves,
        errors: plan.errors,
        simulatedDays: round(plan.simulatedDays, 0),
        ...m,
      };
    });
    for (const row of planRows) log(`plan ${row.school}: ${JSON.stringify(row)}`);
    const sum = (pick: (row: (typeof planRows)[number]) => number) => planRows.reduce((n, row) => n + pick(row), 0);
    const mean = (pick: (row: (typeof planRows)[number]) => number) => sum(pick) / planRows.length;
    const bytesPerPlan = mean((row) => row.revisionBytes + row.versionBytes + row.auditBytes);
    // On disk (tables, their indexes and TOAST, after VACUUM) shared over the simulated plans; the
    // audit log also holds other records, so its share is by its answer records' bytes.
    const simulatedDiskPerPlan = (tableBytes.answer_revisions + tableBytes.plan_versions) / PLANS;

    // The district: every simulated plan's rows copied to DISTRICT plans in all, by SQL.
    const districtStarted = performance.now();
    const district = await buildDistrict(pool, plans, DISTRICT, lastYear);
    await pool.query('vacuum analyze answer_revisions, plan_versions, audit_logs, plans');
    const districtBytes = await tableSizes(pool);
    const districtSeconds = round((performance.now() - districtStarted) / 1000, 1);
    const counts = (
      await pool.query<{ revisions: string; versions: string; audits: string }>(
        `select (select count(*) from answer_revisions) revisions, (select count(*) from plan_versions) versions,
              (select count(*) from audit_logs where action like 'answer.%') audits`,
      )
    ).rows[0]!;
    log(`district: ${DISTRICT} plans, ${JSON.stringify(counts)}, tables ${JSON.stringify(districtBytes)} (built in ${districtSeconds} s)`);

    // History reads at district size: random plans, as the Super Admin and as a simulated plan's principal.
    const readRng = random(4_242);
    const revisionKeys = (
      await pool.query<{ form_id: string; step_key: string; question_id: string }>(
        `select form_id, step_key, question_id from answer_revisions order by random() limit 5000`,
      )
    ).rows;
    const versionKeys = (await pool.query<{ form_id: string; id: string }>(`select form_id, id from plan_versions order by random() limit 5000`)).rows;
    const readers: { label: string; url: () => string; who: () => BenchSession }[] = [
      {
        label: 'one answer: GET /history?stepKey&questionId',
        url: () => {
          const key = readRng.pick(revisionKeys);
          return `/api/forms/${key.form_id}/history?stepKey=${key.step_key}&questionId=${key.question_id}`;
        },
        who: () => admin,
      },
      {
        label: 'whole plan: GET /history (page 1, 50)',
        url: () => `/api/forms/${readRng.pick(revisionKeys).form_id}/history?page=1&limit=50`,
        who: () => admin,
      },
      { label: 'GET /versions', url: () => `/api/forms/${readRng.pick(versionKeys).form_id}/versions`, who: () => admin },
      {
        label: 'GET /versions/:id',
        url: () => {
          const key = readRng.pick(versionKeys);
          return `/api/forms/${key.form_id}/versions/${key.id}`;
        },
        who: () => admin,
      },
      {
        label: 'whole plan as its principal (a simulated plan)',
        url: () => `/api/forms/${plans[0]!.formId}/history?page=1&limit=50`,
        who: () => plans[0]!.principal.session,
      },
    ];
    const reads: Record<string, { latencyMs: ReturnType<typeof roundSummary>; bytes: number; errors: number }> = {};
    for (const reader of readers) {
      for (let i = 0; i < 20; i++) await call('GET', reader.url(), reader.who());
      const times: number[] = [];
      let bytes = 0;
      let errors = 0;
      for (let i = 0; i < READS; i++) {
        const response = await call('GET', reader.url(), reader.who());
        if (response.status !== 200) errors++;
        times.push(response.ms);
        bytes += response.bytes;
      }
      reads[reader.label] = { latencyMs: roundSummary(summarize(times), 1), bytes: Math.round(bytes / READS), errors };
      log(`read ${reader.label}: ${JSON.stringify(reads[reader.label])}`);
    }
    // The same reads, eight at a time (a district's staff opening histories together).
    const concurrent: Record<string, ReturnType<typeof roundSummary>> = {};
    for (const reader of readers.slice(0, 4)) {
      const times: number[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          for (let i = 0; i < READS / 8; i++) times.push((await call('GET', reader.url(), reader.who())).ms);
        }),
      );
      concurrent[reader.label] = roundSummary(summarize(times), 1);
      log(`read ${reader.label}, 8 at a time: ${JSON.stringify(concurrent[reader.label])}`);
    }

    // Figures.
    const mb = (bytes: number) => round(bytes / 2 ** 20, 2);
    const kb = (bytes: number) => round(bytes / 1024, 1);
    result.figures.push(
      { metric: `simulated: plans × sessions, autosaves in all`, value: `${PLANS} × ${SESSIONS}, ${sum((r) => r.autosaves)}`, unit: '' },
      {
        metric: 'per plan: answer revisions (rows / KB)',
        value: `${round(
          mean((r) => r.revisions),
          0,
        )} / ${kb(mean((r) => r.revisionBytes))}`,
        unit: 'rows / KB',
      },
      { metric: 'per plan: autosaves per revision', value: round(sum((r) => r.autosaves) / sum((r) => r.revisions), 1), unit: 'saves' },
      {
        metric: 'per plan: plan versions (rows / KB)',
        value: `${round(
          mean((r) => r.versions),
          1,
        )} / ${kb(mean((r) => r.versionBytes))}`,
        unit: 'rows / KB',
      },
      {
        metric: 'per plan: answer.* audit records (rows / KB)',
        value: `${round(
          mean((r) => r.audits),
          0,
        )} / ${kb(mean((r) => r.auditBytes))}`,
        unit: 'rows / KB',
      },
      { metric: 'per plan: history rows in all (row bytes)', value: kb(bytesPerPlan), unit: 'KB' },
      // What keeping every autosave as a row would have stored instead (the keystroke-grained history).
      {
        metric: 'per plan: a row per autosave instead (autosaves × mean revision row)',
        value: kb(mean((r) => (r.autosaves * r.revisionBytes) / Math.max(1, r.revisions))),
        unit: 'KB',
      },
      {
        metric: `extrapolated: ${DISTRICT_SCHOOLS} plans × history row bytes per plan`,
        value: mb(DISTRICT_SCHOOLS * bytesPerPlan),
        unit: 'MB a year',
      },
      { metric: 'per plan: revisions + versions on disk (with indexes, TOAST)', value: kb(simulatedDiskPerPlan), unit: 'KB' },
      {
        metric: `district of ${DISTRICT} plans built by SQL: revisions + versions + plans' audit records on disk`,
        value: mb(districtBytes.answer_revisions + districtBytes.plan_versions + districtBytes.audit_logs),
        unit: 'MB',
        target: '<= a few GB a year',
        pass: districtBytes.answer_revisions + districtBytes.plan_versions + districtBytes.audit_logs < 4 * 2 ** 30,
      },
    );
    for (const [label, read] of Object.entries(reads))
      result.figures.push({
        metric: `${label}: p50 / p95 / p99 (one at a time)`,
        value: `${read.latencyMs.median} / ${read.latencyMs.p95} / ${read.latencyMs.p99}`,
        unit: 'ms',
        target: `p95 < ${READ_GOAL_MS}`,
        pass: read.latencyMs.p95 < READ_GOAL_MS && read.errors === 0,
      });
    for (const [label, latency] of Object.entries(concurrent))
      result.figures.push({ metric: `${label}: p50 / p95 / p99 (8 at a time)`, value: `${latency.median} / ${latency.p95} / ${latency.p99}`, unit: 'ms' });
    result.details = {
      plans: planRows,
      sessionsPerPlan: SESSIONS,
      peoplePerPlan: PEOPLE_PER_PLAN,
      simulationSeconds,
      simulatedTables: tableBytes,
      district: { plans: DISTRICT, rows: counts, tables: districtBytes, builtSeconds: districtSeconds, ...district },
      reads,
      concurrentReads: concurrent,
    };
  } finally {
    await pool.end().catch(() => {});
    if (server) await server.stop();
    await redis.quit().catch(() => {});
    clearRedisPrefix(prefix);
    await database.drop();
  }
});

/** Rows and row bytes (`pg_column_size` of the row: TOAST-compressed values as stored) per plan. */
async function measurePlans(db: PgQueryable, formIds: string[]) {
  const by = async (sql: string) => new Map((await db.query<{ id: string; rows: string; bytes: string }>(sql, [formIds])).rows.map((row) => [row.id, row]));
  const revisions = await by(`select form_id id, count(*) rows, sum(pg_column_size(t.*)) bytes from answer_revisions t where form_id = any($1) group by 1`);
  const versions = await by(`select form_id id, count(*) rows, sum(pg_column_size(t.*)) bytes from plan_versions t where form_id = any($1) group by 1`);
  const audits = await by(
    `select target_id id, count(*) rows, sum(pg_column_size(t.*)) bytes from audit_logs t where target_id = any($1) and action like 'answer.%' group by 1`,
  );
  const kinds = await db.query<{ id: string; kind: string; n: string }>(
    `select form_id id, kind, count(*) n from plan_versions where form_id = any($1) group by 1, 2`,
    [formIds],
  );
  const authors = await db.query<{ id: string; n: string }>(
    `select form_id id, count(*) n from answer_revisions where form_id = any($1) and jsonb_array_length(author_ids) > 1 group by 1`,
    [formIds],
  );
  return new Map(
    formIds.map((id) => [
      id,
      {
        revisions: Number(revisions.get(id)?.rows ?? 0),
        revisionBytes: Number(revisions.get(id)?.bytes ?? 0),
        revisionsWithSeveralAuthors: Number(authors.rows.find((row) => row.id === id)?.n ?? 0),
        versions: Number(versions.get(id)?.rows ?? 0),
        versionKinds: Object.fromEntries(kinds.rows.filter((row) => row.id === id).map((row) => [row.kind, Number(row.n)])),
        versionBytes: Number(versions.get(id)?.bytes ?? 0),
        audits: Number(audits.get(id)?.rows ?? 0),
        auditBytes: Number(audits.get(id)?.bytes ?? 0),
      },
    ]),
  );
}

/** On-disk size of the history tables (`pg_total_relation_size`: heap, TOAST and indexes). */
async function tableSizes(db: PgQueryable): Promise<Record<'answer_revisions' | 'plan_versions' | 'audit_logs', number>> {
  const { rows } = await db.query<{ a: string; v: string; l: string }>(
    `select pg_total_relation_size('answer_revisions') a, pg_total_relation_size('plan_versions') v, pg_total_relation_size('audit_logs') l`,
  );
  return { answer_revisions: Number(rows[0]!.a), plan_versions: Number(rows[0]!.v), audit_logs: Number(rows[0]!.l) };
}

/**
 * A district of `total` plans: the simulated plans plus copies of them (plan rows, and each one's
 * revisions, versions and answer audit records with fresh ids, the times spread over a few days),
 * in batches of plans so no statement holds the whole district.
 */
async function buildDistrict(db: PgQueryable, templates: { formId: string }[], total: number, lastYear: string): Promise<{ copies: number }> {
  const copies = total - templates.length;
  const ids = Array.from({ length: copies }, () => newId());
  await insertRows(
    db,
    'plans',
    ['id', 'school_name', 'school_year', 'status', 'question_bank_version'],
    ids.map((id, i) => [
      id,
      `District School ${String(i + 1).padStart(4, '0')}`,
      lastYear.replace(/\d{4}/g, (y) => String(Number(y) + 1)),
      'approved',
      BANK.version,
    ]),
  );
  await db.query(`create temporary table district_copy (id text primary key, template text not null, shift interval not null)`);
  await insertRows(
    db,
    'district_copy',
    ['id', 'template', 'shift'],
    ids.map((id, i) => [id, templates[i % templates.length]!.formId, `${Math.round(Math.random() * 5 * 86_400)} seconds`]),
  );
  const hex = `substr(md5(random()::text || clock_timestamp()::text), 1, 24)`;
  for (let start = 0; start < copies; start += 100) {
    const batch = ids.slice(start, start + 100);
    await db.query(
      `insert into answer_revisions (id, form_id, step_key, question_id, kind, author_ids, before, after, step_revision, restored_from_id, started_at, updated_at)
       select ${hex}, c.id, r.step_key, r.question_id, r.kind, r.author_ids, r.before, r.after, r.step_revision, r.restored_from_id, r.started_at - c.shift, r.updated_at - c.shift
       from district_copy c join answer_revisions r on r.form_id = c.template where c.id = any($1)`,
      [batch],
    );
    await db.query(
      `insert into plan_versions (id, form_id, kind, actor_id, actor_name, comment, steps, attestation, created_at)
       select ${hex}, c.id, v.kind, v.actor_id, v.actor_name, v.comment, v.steps, v.attestation, v.created_at - c.shift
       from district_copy c join plan_versions v on v.form_id = c.template where c.id = any($1)`,
      [batch],
    );
    await db.query(
      `insert into audit_logs (id, actor_id, actor_email, action, target_type, target_id, summary, created_at)
       select ${hex}, a.actor_id, a.actor_email, a.action, a.target_type, c.id, a.summary, a.created_at - c.shift
       from district_copy c join audit_logs a on a.target_id = c.template where c.id = any($1)`,
      [batch],
    );
  }
  return { copies };
}
