import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { MemoryStore } from './memory.ts';
import { RedisStore, createPubSubClient, createRedisClient } from './redis.ts';
import type { KeyValueStore } from './store.ts';
import { pause } from '../testing/wait.ts';
import { startTestServer } from '../testing/testServer.ts';
import { freePort } from '../testing/serverProcess.ts';
import { startRedisProxy, type RedisProxy } from '../testing/tcpProxy.ts';

const stores: [string, () => KeyValueStore][] = [['memory', () => new MemoryStore()]];
if (process.env.REDIS_URL) {
  stores.push(['redis', () => new RedisStore(createRedisClient(process.env.REDIS_URL!, `csp-test-${randomBytes(4).toString('hex')}:`))]);
}

describe.each(stores)('%s key-value store', (_kind, open) => {
  const store = open();
  afterAll(() => store.close());

  it('sets, reads and expires keys', async () => {
    await store.set('a', '1');
    await store.set('b', '2', 60);
    const [a, b, missing] = await store.getMany(['a', 'b', 'missing']);
    expect(a).toEqual({ value: '1', ttlMs: -1 });
    expect(b!.value).toBe('2');
    expect(b!.ttlMs).toBeGreaterThan(0);
    expect(b!.ttlMs).toBeLessThanOrEqual(60);
    expect(missing).toBeNull();
    await pause(120);
    expect(await store.get('b')).toBeNull();
    await store.delete('a');
    expect(await store.get('a')).toBeNull();
  });

  it('claims a free key, refreshes for its owner and refuses others', async () => {
    const first = await store.claim('lock:1', 'alice', 'payload-a', 1000);
    expect(first.acquired).toBe(true);
    const other = await store.claim('lock:1', 'bob', 'payload-b', 1000);
    expect(other.acquired).toBe(false);
    expect(other.value).toBe('alice\npayload-a');
    expect(other.ttlMs).toBeGreaterThan(0);
    expect(first.refreshed).toBe(false);
    const refreshed = await store.claim('lock:1', 'alice', 'payload-a2', 1000);
    expect(refreshed.acquired).toBe(true);
    expect(refreshed.refreshed).toBe(true);
    // A renewal keeps the holder's original value.
    expect(await store.get('lock:1')).toBe('alice\npayload-a');
  });

  it('releases only for the owner; an owner that is a prefix of another is not the owner', async () => {
    await store.claim('lock:2', 'alice', 'x', 1000);
    expect(await store.release('lock:2', 'bob')).toBe(false);
    expect(await store.release('lock:2', 'alic')).toBe(false);
    expect(await store.release('lock:2', 'alice')).toBe(true);
    expect(await store.get('lock:2')).toBeNull();
    expect((await store.claim('lock:2', 'bob', 'y', 1000)).acquired).toBe(true);
  });

  it('extends a claim only for its owner', async () => {
    await store.claim('lock:4', 'alice', 'x', 80);
    expect(await store.extend('lock:4', 'bob', 5000)).toBe(false);
    expect(await store.extend('lock:4', 'alice', 5000)).toBe(true);
    await pause(150);
    expect(await store.get('lock:4')).toBe('alice\nx');
    expect(await store.extend('lock:missing', 'alice', 5000)).toBe(false);
  });

  it('lets a claim lapse after its TTL', async () => {
    await store.claim('lock:3', 'alice', 'x', 60);
    await pause(120);
    expect((await store.claim('lock:3', 'bob', 'y', 1000)).acquired).toBe(true);
  });

  it('counts atomically within a window set by the first increment', async () => {
    const counts = await Promise.all(Array.from({ length: 25 }, () => store.increment('count:1', 200)));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    await pause(260);
    expect(await store.increment('count:1', 200)).toBe(1);
  });

  it('claims and counts in one call, as claim and increment each would', async () => {
    const counter = { key: 'count:2', ttlMs: 200 };
    const first = await store.claimAndIncrement({ key: 'lock:5', owner: 'alice', payload: 'a', ttlMs: 1000 }, counter);
    expect(first).toEqual({ claim: { acquired: true, refreshed: false, value: 'alice\na', ttlMs: 1000 }, count: 1 });
    const renewed = await store.claimAndIncrement({ key: 'lock:5', owner: 'alice', payload: 'a2', ttlMs: 1000 }, counter);
    expect(renewed.claim).toMatchObject({ acquired: true, refreshed: true, value: 'alice\na' });
    expect(renewed.count).toBe(2);
    // Refused by the holder, yet counted: the limit counts attempts.
    const refused = await store.claimAndIncrement({ key: 'lock:5', owner: 'bob', payload: 'b', ttlMs: 1000 }, counter);
    expect(refused.claim).toMatchObject({ acquired: false, value: 'alice\na' });
    expect(refused.claim.ttlMs).toBeGreaterThan(0);
    expect(refused.count).toBe(3);
    // The counter's window began with its first count.
    await pause(260);
    expect((await store.claimAndIncrement({ key: 'lock:5', owner: 'alice', payload: 'a', ttlMs: 1000 }, counter)).count).toBe(1);
  });

  it('answers claims made together each on its own, in the order made', async () => {
    const counter = { key: 'count:3', ttlMs: 1000 };
    const claims = await Promise.all(
      ['carol', 'dave', 'carol'].map((owner, index) => store.claimAndIncrement({ key: `lock:6`, owner, payload: String(index), ttlMs: 1000 }, counter)),
    );
    expect(claims.map(({ claim, count }) => [claim.acquired, claim.refreshed, claim.value, count])).toEqual([
      [true, false, 'carol\n0', 1],
      [false, false, 'carol\n0', 2],
      [true, true, 'carol\n0', 3],
    ]);
  });

  it('expires hash fields one by one', async () => {
    await store.hashSet('presence:1', 'a@x', 'A', 60);
    await store.hashSet('presence:1', 'b@x', 'B', 5000);
    expect(await store.hashGetAll('presence:1')).toEqual({ 'a@x': 'A', 'b@x': 'B' });
    await pause(120);
    expect(await store.hashGetAll('presence:1')).toEqual({ 'b@x': 'B' });
    await store.hashDelete('presence:1', 'b@x');
    expect(await store.hashGetAll('presence:1')).toEqual({});
  });

  it('sets fields of several hashes in one call, each with its own lifetime', async () => {
    await store.hashSetMany([
      { key: 'presence:2', field: 'a@x', value: 'A', ttlMs: 60 },
      { key: 'presence:2', field: 'b@x', value: 'B', ttlMs: 5000 },
      { key: 'presence:3', field: 'c@x', value: 'C', ttlMs: 5000 },
    ]);
    await store.hashSetMany([]);
    expect(await store.hashGetAll('presence:2')).toEqual({ 'a@x': 'A', 'b@x': 'B' });
    expect(await store.hashGetAll('presence:3')).toEqual({ 'c@x': 'C' });
    await pause(120);
    expect(await store.hashGetAll('presence:2')).toEqual({ 'b@x': 'B' });
  });
});

/**
 * Commands fail fast while Redis is not connected, so a server must not answer before its store
 * has connected: behind a proxy that lets the connection through only after a pause, the first
 * request after the start already finds Redis; an unreachable Redis is not waited for forever.
 */
describe.skipIf(!process.env.REDIS_URL)('a server whose Redis connects slowly', () => {
  const CONNECT_DELAY_MS = 800;
  let proxy: RedisProxy;

  beforeAll(async () => {
    proxy = await startRedisProxy(process.env.REDIS_URL!, { connectDelayMs: CONNECT_DELAY_MS });
  });
  afterAll(() => proxy.close());

  it('answers its first request with Redis connected', async () => {
    const server = await startTestServer({ REDIS_URL: proxy.url });
    try {
      const response = await fetch(`${server.url}/api/health`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: 'ok', redis: 'ok' });
    } finally {
      await server.stop();
    }
  });

  it('reports the subscriptions of a publish-and-subscribe client closed before it connected, instead of rejecting them', async () => {
    const failures: string[] = [];
    const client = createPubSubClient(proxy.url, (error, command) => failures.push(`${command}: ${(error as Error).message}`));
    // As the Socket.IO adapter subscribes: at once, not awaited, while the connection is on its way.
    const subscribed = [client.psubscribe('csp-test-pattern*'), client.subscribe('csp-test-channel')];
    expect(client.status).not.toBe('ready');
    client.disconnect();
    expect(await Promise.all(subscribed)).toEqual([0, 0]);
    expect(failures).toEqual(['psubscribe: Connection is closed.', 'subscribe: Connection is closed.']);
  });

  it('reports a store that cannot connect as not connected once the wait is over', async () => {
    const store = new RedisStore(createRedisClient(`redis://127.0.0.1:${await freePort()}`));
    try {
      expect(await store.whenConnected(300)).toBe(false);
    } finally {
      await store.close();
    }
    const reachable = new RedisStore(createRedisClient(proxy.url));
    try {
      expect(await reachable.whenConnected(10_000)).toBe(true);
    } finally {
      await reachable.close();
    }
  });
});
