import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of a Redis, so a test can delay a server's connections to it or cut them
 * while the Redis itself (shared with other processes) stays up.
 */
export interface RedisProxy {
  url: string;
  /** Drops every connection through the proxy and refuses new ones until `restore`. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(redisUrl: string, { connectDelayMs = 0 } = {}): Promise<RedisProxy> {
  const redis = new URL(redisUrl);
  const open = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    client.pause();
    open.add(client);
    setTimeout(() => {
      const upstream = connect(Number(redis.port || 6379), redis.hostname, () => client.resume());
      open.add(upstream);
      client.pipe(upstream).pipe(client);
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
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut,
    restore: () => void (refusing = false),
    close: () => {
      cut();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
