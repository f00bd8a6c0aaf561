/**
 * Benchmark 8: page weight in Chromium. A principal's dashboard and a step editor of their plan,
 * each loaded cold (a browser profile with an empty cache, signed in by its cookie alone) and then
 * reloaded warm (the same profile, a full reload), counting what crossed the network as Chromium's
 * own network log reports it: HTTP requests that reached the server, the bytes they took (headers
 * and bodies as sent, compressed or not), and the WebSocket messages of the live connections. It
 * prints figures; it asserts nothing. Goals: a cold step editor under 200 KiB, a warm reload under 20 KiB.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { startTestServer } from '../../server/src/testing/testServer.ts';
import { signIn } from '../../server/src/testing/signIn.ts';
import { formIdOf } from '../../server/src/testing/plans.ts';
import { launchBrowser, newContext, signInAs } from '../support/browser.ts';
import { log, runBenchmark, type BenchResult } from './results.ts';
import { round } from './stats.ts';

const PRINCIPAL = 'principal.harbor@example.org';
const COLD_STEP_GOAL_KIB = 200;
const WARM_RELOAD_GOAL_KIB = 20;

interface Weight {
  /** HTTP requests answered by the server (not from the browser's cache), 304s included. */
  requests: number;
  /** Of those, answered 304 Not Modified. */
  notModified: number;
  /** Requests the browser answered from its own cache, sending nothing. */
  fromCache: number;
  httpKiB: number;
  webSocketKiB: number;
  totalKiB: number;
  /** The heaviest responses on the wire, to see where the weight is. */
  heaviest: { url: string; kib: number }[];
}

/** Chromium's network log of one page, from now until `finish`. */
async function watchNetwork(context: BrowserContext, page: Page): Promise<{ finish: () => Promise<Weight> }> {
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const requests = new Set<string>();
  const cached = new Set<string>();
  let notModified = 0;
  let httpBytes = 0;
  let webSocketBytes = 0;
  const urls = new Map<string, string>();
  const bytesOf = new Map<string, number>();
  cdp.on('Network.requestWillBeSent', (event) => {
    requests.add(event.requestId);
    urls.set(event.requestId, new URL(event.request.url).pathname);
  });
  cdp.on('Network.requestServedFromCache', (event) => cached.add(event.requestId));
  cdp.on('Network.responseReceived', (event) => {
    if (event.response.fromDiskCache || event.response.fromPrefetchCache) cached.add(event.requestId);
    if (event.response.status === 304) notModified++;
  });
  cdp.on('Network.loadingFinished', (event) => {
    httpBytes += event.encodedDataLength;
    bytesOf.set(event.requestId, event.encodedDataLength);
  });
  const frameBytes = (event: { response: { opcode: number; payloadData: string } }) =>
    (webSocketBytes += event.response.opcode === 1 ? Buffer.byteLength(event.response.payloadData) : Buffer.from(event.response.payloadData, 'base64').length);
  cdp.on('Network.webSocketFrameReceived', frameBytes);
  cdp.on('Network.webSocketFrameSent', frameBytes);
  return {
    finish: async () => {
      await cdp.detach();
      const kib = (bytes: number) => round(bytes / 1024, 1);
      return {
        requests: requests.size - cached.size,
        notModified,
        fromCache: cached.size,
        httpKiB: kib(httpBytes),
        webSocketKiB: kib(webSocketBytes),
        totalKiB: kib(httpBytes + webSocketBytes),
        heaviest: [...bytesOf]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 60)
          .map(([id, bytes]) => ({ url: urls.get(id) ?? id, kib: kib(bytes) })),
      };
    },
  };
}

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
