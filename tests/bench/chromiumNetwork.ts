/** What crossed the network for one page, as Chromium's own network log reports it (the page-weight and district benchmarks). */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { round } from './stats.ts';

export interface Weight {
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
export async function watchNetwork(context: BrowserContext, page: Page): Promise<{ finish: () => Promise<Weight> }> {
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
          .slice(0, 15)
          .map(([id, bytes]) => ({ url: urls.get(id) ?? id, kib: kib(bytes) })),
      };
    },
  };
}
