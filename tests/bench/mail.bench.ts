/**
 * Benchmark 10: deadline reminders and outbound mail at district size (issue 33).
 *
 * 1. A district in PostgreSQL: 1,600 schools, each with a principal owning its plan and two staff
 *    members with an edit share on two sections; every section of the year has a due date (from a
 *    few days ago to three weeks ahead, reminders 7 days before) and about half the sections of each
 *    plan are unfinished. A fifth of the people take reminders as a daily digest.
 * 2. The day's run as the mail sender does it (`startDailyRun`: every unfinished section's reminder
 *    recorded, one outbox item per person), then composing every item into its message (at once,
 *    and the digests): timed, with the rows they wrote.
 * 3. Sending: a real server process (its own mail sender, on the same database) with SMTP_URL at a
 *    real SMTP server in this process (smtp-server) and MAIL_RATE_PER_MINUTE; for a while the
 *    arrivals are counted, and the most accepted in any 60 s window is compared with the bound.
 *
 * Prints figures; asserts nothing on time.
 *
 *   BENCH_MAIL_SCHOOLS=1600 BENCH_MAIL_RATE=600 BENCH_MAIL_SEND_SECONDS=75
 */
import { currentSchoolYear } from '@csp/shared';
import { BANK, insertAnsweredPlans, insertUsers, schoolName, type UserRow } from './fixtures.ts';
import { QUICK } from './config.ts';
import { createDatabase, insertRows, pg } from './postgres.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { round } from './stats.ts';
import { serverEnv } from './servers.ts';
import { sleep } from './time.ts';
import { openStorage } from '../../server/src/storage/database.ts';
import { ensureBundledBank } from '../../server/src/domain/questionBank/ensureBundledBank.ts';
import { startDailyRun } from '../../server/src/domain/mail/dailyRun.ts';
import { composeDigests, composeImmediate, type MailSetup } from '../../server/src/domain/mail/composeMail.ts';
import { newId } from '../../server/src/storage/ids.ts';
import { SmtpSink } from '../../server/src/testing/smtpSink.ts';
import { startServerProcess } from '../../server/src/testing/serverProcess.ts';

const SCHOOLS = Number(process.env.BENCH_MAIL_SCHOOLS ?? (QUICK ? 200 : 1_600));
const RATE = Number(process.env.BENCH_MAIL_RATE ?? 600);
const SEND_SECONDS = Number(process.env.BENCH_MAIL_SEND_SECONDS ?? (QUICK ? 30 : 75));
const STAFF_PER_SCHOOL = 2;
const QUEUE_GOAL_S = 10;
const DAY_MS = 86_400_000;

const isoDay = (offsetDays: number, from = new Date()) => new Date(from.getTime() + offsetDays * DAY_MS).toISOString().slice(0, 10);

await runBenchmark('mail', 'Deadline reminders and mail at district size', async (result: BenchResult) => {
  const database = await createDatabase('mail');
  const prefix = redisPrefix('mail');
  const storage = await openStorage({ databaseUrl: database.url, dataDir: '', poolSize: 4 });
  const pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const sink = await new SmtpSink().start();
  let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  try {
    const schoolYear = currentSchoolYear();
    const today = isoDay(0);
    const fixtureStarted = performance.now();
    await ensureBundledBank(storage.db);
    const principals: UserRow[] = Array.from({ length: SCHOOLS }, (_, i) => ({
      id: newId(),
      email: `principal.mail${i + 1}@example.org`,
      name: `Principal ${i + 1}`,
      level: 4,
      school: schoolName('Mail', i),
    }));
    const staff: (UserRow & { school: string })[] = principals.flatMap((_, i) =>
      Array.from({ length: STAFF_PER_SCHOOL }, (_, s) => ({
        id: newId(),
        email: `staff.mail${i + 1}.${s + 1}@example.org`,
        name: `Staff ${i + 1}.${s + 1}`,
        level: 3,
        school: schoolName('Mail', i),
      })),
    );
    await insertUsers(pool, [...principals, ...staff]);
    const plans = await insertAnsweredPlans(pool, {
      label: 'Mail',
      count: SCHOOLS,
      schoolYear,
      ownerIds: principals.map((p) => p.id),
      principalEmails: principals.map((p) => p.email),
    });
    // Each staff member edits two sections (a principal assigns sections); steps 2.. of the bank.
    const shareRows = staff.map((person, index) => {
      const plan = plans[Math.floor(index / STAFF_PER_SCHOOL)]!;
      const first = 1 + ((index * 2) % (BANK.steps.length - 2));
      return [plan.id, person.id, 'edit', JSON.stringify([BANK.steps[first]!.key, BANK.steps[first + 1]!.key])];
    });
    await insertRows(pool, 'plan_shares', ['form_id', 'user_id', 'permission', 'sections'], shareRows, { sections: 'jsonb' });
    // About half of each plan's sections unfinished; a fifth of the people read reminders in a digest.
    await pool.query(`update plan_steps set completed = (random() < 0.5)`);
    await pool.query(`update users set mail_preferences = '{"reminders":"digest"}'::jsonb where random() < 0.2`);
    const deadlines = BANK.steps.map((step, index) => ({ stepKey: step.key, label: step.title, dueDate: isoDay(index * 2 - 5) }));
    await pool.query(
      `insert into school_year_settings (school_year, deadlines, term_start, term_end, reminder_days_before) values ($1, $2::jsonb, $3, $4, 7)
       on conflict (school_year) do update set deadlines = excluded.deadlines, reminder_days_before = 7`,
      [schoolYear, JSON.stringify(deadlines), isoDay(-120), isoDay(200)],
    );
    await pool.query('analyze');
    const people = principals.length + staff.length;
    log(`fixture: ${SCHOOLS} schools, ${people} people, ${deadlines.length} due dates in ${round((performance.now() - fixtureStarted) / 1000, 1)} s`);

    // The day's run, as the first sender of the day runs it.
    const queueStarted = performance.now();
    if (!(await startDailyRun(storage.db, today, new Date()))) throw new Error('the day was already taken');
    const queueSeconds = (performance.now() - queueStarted) / 1000;
    const counted = async (query: string) => (await pool.query<{ n: number }>(query)).rows[0]!.n;
    const reminded = await counted(`select count(*)::int as n from deadline_reminders`);
    const items = await counted(`select count(*)::int as n from mail_outbox`);
    log(`daily run: ${reminded} section reminders, ${items} outbox items (one per person) in ${round(queueSeconds, 2)} s`);

    const setup: MailSetup = { appUrl: 'http://localhost:3000', secret: 'bench-mail-secret-0123456789abcdef', transport: 'smtp' };
    const composeStarted = performance.now();
    while ((await composeImmediate(storage.db, setup)) > 0);
    const digested = await composeDigests(storage.db, setup, today, new Date(Date.now() + 1_000));
    const composeSeconds = (performance.now() - composeStarted) / 1000;
    const messages = await counted(`select count(*)::int as n from mail_messages`);
    const digests = await counted(`select count(*)::int as n from mail_messages where key like 'digest:%'`);
    log(`composed ${messages} messages (${digests} digests of ${digested} items) in ${round(composeSeconds, 2)} s`);

    // Sending through a real server process at the configured bound.
    server = await startServerProcess(serverEnv(database.url, prefix, { SEED: 'none', SMTP_URL: sink.url, MAIL_RATE_PER_MINUTE: String(RATE) }));
    const arrivals: number[] = [];
    const before = sink.received.length;
    sink.onAccepted = () => arrivals.push(performance.now());
    const sendStarted = performance.now();
    while (performance.now() - sendStarted < SEND_SECONDS * 1000 && sink.received.length - before < messages) await sleep(500);
    const sendSeconds = (performance.now() - sendStarted) / 1000;
    const sent = arrivals.length;
    let busiestMinute = 0;
    for (let i = 0, j = 0; j < arrivals.length; j++) {
      while (arrivals[j]! - arrivals[i]! >= 60_000) i++;
      busiestMinute = Math.max(busiestMinute, j - i + 1);
    }
    const perMinute = sendSeconds > 0 ? (sent / sendSeconds) * 60 : 0;
    log(`sent ${sent} of ${messages} in ${round(sendSeconds, 1)} s; busiest 60 s: ${busiestMinute} (bound ${RATE}/min)`);

    result.figures.push(
      { metric: `schools / people reminded`, value: `${SCHOOLS} / ${items}`, unit: '' },
      { metric: 'section reminders recorded', value: reminded, unit: 'reminders' },
      { metric: 'daily run: computed and queued', value: round(queueSeconds, 2), unit: 's', target: `<= ${QUEUE_GOAL_S}`, pass: queueSeconds <= QUEUE_GOAL_S },
      {
        metric: 'compose every message (incl. digests)',
        value: round(composeSeconds, 2),
        unit: 's',
        target: `<= ${QUEUE_GOAL_S}`,
        pass: composeSeconds <= QUEUE_GOAL_S,
      },
      { metric: 'sending rate (measured)', value: round(perMinute, 0), unit: 'messages/min' },
      { metric: 'most sent in any 60 s', value: busiestMinute, unit: 'messages', target: `<= ${RATE}`, pass: busiestMinute <= RATE },
      { metric: 'whole district sent in (at the bound)', value: round(messages / RATE, 1), unit: 'min' },
    );
    result.details = {
      schools: SCHOOLS,
      people,
      reminded,
      items,
      messages,
      digests,
      digestItems: digested,
      rate: RATE,
      sendSeconds: round(sendSeconds, 1),
      sent,
    };
  } finally {
    await server?.stop();
    await sink.stop();
    await pool.end();
    await storage.close();
    clearRedisPrefix(prefix);
    await database.drop();
  }
});
