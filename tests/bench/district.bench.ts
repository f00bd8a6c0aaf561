/**
 * Benchmark 10: the admin pages and the dashboard at district size in Chromium. The real server
 * (its own process, production mode, PostgreSQL + Redis) on a database grown by the district
 * fixture (server/src/testing/districtFixture.ts: 1,600 schools, two years of plans, ~2,000
 * users, 100,000 audit records), each page loaded cold as the Super Admin. Per page: time to
 * content (navigation until the page's heading shows and its last request finished), requests,
 * bytes on the wire, the longest main-thread task, and the server's RSS before and after. Then the
 * server's RSS after 30 s idle. Goals (issue 32): content under 1 s, no page over 300 KB, no long
 * task over 100 ms. It asserts nothing.
 *
 *   BENCH_ONLY=district npx -y pnpm@10.34.9 bench
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { growDistrict } from '../../server/src/testing/districtFixture.ts';
import { openStorage } from '../../server/src/storage/database.ts';
import { startServerProcess } from '../../server/src/testing/serverProcess.ts';
import { SESSION_COOKIE } from '../../server/src/auth/sessions.ts';
import { newId } from '../../server/src/storage/ids.ts';
import { launchBrowser, newContext } from '../support/browser.ts';
import { watchNetwork } from './chromiumNetwork.ts';
import { insertSessions, insertUsers } from './fixtures.ts';
import { createDatabase, pg } from './postgres.ts';
import { clearRedisPrefix, redisPrefix } from './redis.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { serverEnv } from './servers.ts';
import { round } from './stats.ts';
import { QUICK } from './config.ts';

const PAGES = ['/dashboard', '/plans', '/admin/plans', '/admin/users', '/admin/school-years', '/admin/question-bank', '/admin/audit-log', '/admin/system'];
const CONTENT_GOAL_MS = 1_000;
const WEIGHT_GOAL_KIB = 300;
const LONG_TASK_GOAL_MS = 100;
const IDLE_MS = QUICK ? 5_000 : 30_000;

/** Resident memory of a process, from the kernel (MiB). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((row) => row.startsWith('VmRSS:'))!;
  return round(Number(line.replace(/\D+/g, '')) / 1024, 1);
}

/** The page's longest main-thread task so far (ms), kept by an observer installed before the app's scripts run. */
const LONG_TASK_OBSERVER = `window.__longestTask = 0;
new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longestTask = Math.max(window.__longestTask, entry.duration); })
  .observe({ type: 'longtask', buffered: true });`;

interface PageFigures {
  path: string;
  contentMs: number;
  requests: number;
  kib: number;
  longestTaskMs: number;
  rssBeforeMiB: number;
  rssAfterMiB: number;
}

await runBenchmark('district', 'Admin pages and dashboard at district size in Chromium', async (result: BenchResult) => {
  const database = await createDatabase('district');
  const prefix = redisPrefix('district');
  const server = await startServerProcess(serverEnv(database.url, prefix, { SEED: 'none' }));
  const pid = server.child.pid!;
  server.child.once('exit', (code, signal) => log(`server exited (${code ?? signal}):`, server.output().slice(-3000)));
  const browser = await launchBrowser();
  try {
    const storage = await openStorage({ databaseUrl: database.url, dataDir: 'memory://', migrate: false });
    const grown = performance.now();
    const district = await growDistrict(storage.db);
    const fixtureSeconds = round((performance.now() - grown) / 1000, 1);
    await storage.close();
    log(`district grown in ${fixtureSeconds} s`, district);

    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const adminId = newId();
    await insertUsers(pool, [{ id: adminId, email: 'bench.superadmin@example.org', name: 'Bench Superintendent', level: 5, school: 'District Office' }]);
    const [session] = await insertSessions(pool, [adminId]);
    await pool.end();
    const cookies = session!.cookie.split('; ').map((pair) => {
      const [name, value] = pair.split('=') as [string, string];
      return { name, value, url: server.url };
    });
    if (!cookies.some((cookie) => cookie.name === SESSION_COOKIE)) throw new Error('no session cookie');

    const rssAtStart = rssMiB(pid);
    const pages: PageFigures[] = [];
    for (const path of PAGES) {
      const context = await newContext(browser, { viewport: { width: 1280, height: 900 } });
      await context.addCookies(cookies);
      await context.addInitScript(LONG_TASK_OBSERVER);
      const page: Page = await context.newPage();
      const network = await watchNetwork(context, page);
      let lastResponseAt = 0;
      page.on('requestfinished', () => (lastResponseAt = performance.now()));
      const rssBeforeMiB = rssMiB(pid);
      const started = performance.now();
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      const headingAt = performance.now();
      await page.waitForLoadState('networkidle');
      const weight = await network.finish();
      const figures: PageFigures = {
        path,
        contentMs: round(Math.max(headingAt, lastResponseAt) - started, 0),
        requests: weight.requests,
        kib: weight.totalKiB,
        longestTaskMs: round(await page.evaluate(() => (window as unknown as { __longestTask: number }).__longestTask), 0),
        rssBeforeMiB,
        rssAfterMiB: rssMiB(pid),
      };
      pages.push(figures);
      log(figures);
      await context.close();
    }
    const rssAfterWalk = rssMiB(pid);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const rssIdle = rssMiB(pid);
    log(`server RSS: ${rssAtStart} MiB at the start, ${rssAfterWalk} after the walk, ${rssIdle} after ${IDLE_MS / 1000} s idle`);

    result.details = { fixtureSeconds, district, pages, rss: { start: rssAtStart, afterWalk: rssAfterWalk, idle: rssIdle, idleSeconds: IDLE_MS / 1000 } };
    result.figures.push({ metric: 'Fixture: 1,600 schools, 2 years, ~2,000 users, 100,000 audit records', value: fixtureSeconds, unit: 's' });
    for (const figures of pages) {
      result.figures.push({
        metric: `${figures.path}: content / requests / KiB / longest task`,
        value: `${figures.contentMs} ms / ${figures.requests} / ${figures.kib} / ${figures.longestTaskMs} ms`,
        unit: '',
        target: `< ${CONTENT_GOAL_MS} ms, < ${WEIGHT_GOAL_KIB} KiB, < ${LONG_TASK_GOAL_MS} ms`,
        pass: figures.contentMs < CONTENT_GOAL_MS && figures.kib < WEIGHT_GOAL_KIB && figures.longestTaskMs < LONG_TASK_GOAL_MS,
      });
    }
    result.figures.push({
      metric: `Server RSS: start / after the walk / after ${IDLE_MS / 1000} s idle`,
      value: `${rssAtStart} / ${rssAfterWalk} / ${rssIdle}`,
      unit: 'MiB',
    });
  } finally {
    await browser.close();
    await server.stop();
    clearRedisPrefix(prefix);
    await database.drop();
  }
});
