/**
 * Benchmark 8: page weight in Chromium. A principal's dashboard and a step editor of their plan,
 * each loaded cold (a browser profile with an empty cache, signed in by its cookie alone) and then
 * reloaded warm (the same profile, a full reload), counting what crossed the network as Chromium's
 * own network log reports it: HTTP requests that reached the server, the bytes they took (headers
 * and bodies as sent, compressed or not), and the WebSocket messages of the live connections. It
 * prints figures; it asserts nothing. Goals: a cold step editor under 200 KiB, a warm reload under 20 KiB.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { watchNetwork, type Weight } from './chromiumNetwork.ts';
import { startTestServer } from '../../server/src/testing/testServer.ts';
import { signIn } from '../../server/src/testing/signIn.ts';
import { formIdOf } from '../../server/src/testing/plans.ts';
import { launchBrowser, newContext, signInAs } from '../support/browser.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';

const PRINCIPAL = 'principal.harbor@example.org';
const COLD_STEP_GOAL_KIB = 200;
const WARM_RELOAD_GOAL_KIB = 20;

/** Loads `path` (or reloads it) and waits until the page shows `ready` and the network has settled. */
async function measure(context: BrowserContext, page: Page, load: () => Promise<unknown>, ready: () => Promise<void>): Promise<Weight> {
  const network = await watchNetwork(context, page);
  await load();
  await ready();
  await page.waitForLoadState('networkidle');
  return network.finish();
}

await runBenchmark('pageweight', 'Page weight: dashboard and step editor in Chromium, cold and warm', async (result: BenchResult) => {
  const server = await startTestServer();
  const browser = await launchBrowser();
  try {
    const formId = await formIdOf(await signIn(server.url, PRINCIPAL), 'Harbor View Academy');
    // Signed in once; each measured profile starts from that cookie alone, with an empty cache.
    const signedIn = await signInAs(browser, server.url, PRINCIPAL, '/plans');
    const storageState = await signedIn.context.storageState();
    await signedIn.context.close();

    const pages = [
      { name: 'dashboard', path: '/dashboard', ready: (page: Page) => page.getByRole('heading', { level: 1 }).first().waitFor() },
      {
        name: 'step editor',
        path: `/plans/${formId}/step/2`,
        // Its answers loaded and its live document synced.
        ready: async (page: Page) => {
          await page
            .getByRole('status')
            .filter({ hasText: /All changes saved|Saved at/ })
            .first()
            .waitFor();
          await page.getByText('Live: changes appear as people type').first().waitFor();
        },
      },
    ];
    const details: Record<string, { cold: Weight; warm: Weight }> = {};
    for (const { name, path, ready } of pages) {
      const context = await newContext(browser, { storageState, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const cold = await measure(
        context,
        page,
        () => page.goto(`${server.url}${path}`),
        () => ready(page),
      );
      const warm = await measure(
        context,
        page,
        () => page.reload(),
        () => ready(page),
      );
      await context.close();
      details[name] = { cold, warm };
      log(`${name}: cold`, cold, 'warm reload', warm);
    }
    result.details = { ...details, note: 'KiB on the wire: HTTP headers and bodies as sent (Chromium encodedDataLength) plus WebSocket message payloads' };
    const step = details['step editor']!;
    const dashboard = details.dashboard!;
    result.figures.push(
      { metric: 'Dashboard cold: requests / KiB on the wire', value: `${dashboard.cold.requests} / ${dashboard.cold.totalKiB}`, unit: 'req / KiB' },
      {
        metric: 'Dashboard warm reload: requests / KiB',
        value: `${dashboard.warm.requests} / ${dashboard.warm.totalKiB}`,
        unit: 'req / KiB',
        target: `< ${WARM_RELOAD_GOAL_KIB} KiB`,
        pass: dashboard.warm.totalKiB < WARM_RELOAD_GOAL_KIB,
      },
      {
        metric: 'Step editor cold: requests / KiB on the wire',
        value: `${step.cold.requests} / ${step.cold.totalKiB}`,
        unit: 'req / KiB',
        target: `< ${COLD_STEP_GOAL_KIB} KiB`,
        pass: step.cold.totalKiB < COLD_STEP_GOAL_KIB,
      },
      {
        metric: 'Step editor warm reload: requests / KiB',
        value: `${step.warm.requests} / ${step.warm.totalKiB}`,
        unit: 'req / KiB',
        target: `< ${WARM_RELOAD_GOAL_KIB} KiB`,
        pass: step.warm.totalKiB < WARM_RELOAD_GOAL_KIB,
      },
    );
  } finally {
    await browser.close();
    await server.stop();
  }
});
