import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a server (a Redis, the app itself), so a test can delay connections
 * through it, cut them, or freeze them, while the server behind it stays up for everyone else.
 */
export interface TcpProxy {
  port: number;
  /** Drops every connection through the proxy and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  /**
   * Stops carrying bytes either way and closes nothing: a network that went away silently (a
   * laptop shut, a train in a tunnel). Only a timeout at either end notices.
   */
  freeze(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, { connectDelayMs = 0 } = {}): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let refusing = false;
  let frozen = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    client.pause();
    open.add(client);
    setTimeout(() => {
      const upstream = connect(target.port, target.host, () => {
        if (!frozen) client.resume();
      });
      open.add(upstream);
      if (!frozen) client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    }, connectDelayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    refusing = true;
    for (const socket of open) socket.destroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    restore: () => void (refusing = false),
    freeze: () => {
      frozen = true;
      for (const socket of open) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: () => {
      cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A proxy in front of a Redis, with the URL to reach it through. */
export interface RedisProxy extends TcpProxy {
  url: string;
}

export async function startRedisProxy(redisUrl: string, options: { connectDelayMs?: number } = {}): Promise<RedisProxy> {
  const redis = new URL(redisUrl);
  const proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) }, options);
  return { ...proxy, url: `redis://127.0.0.1:${proxy.port}` };
}
