/**
 * A minimal HTTP/1.1 keep-alive client over `net` sockets for load generation. The machine has
 * two cores shared by the generator, the server, PostgreSQL and Redis, so what the generator
 * spends per request is taken from the server: this client writes a prepared request and parses
 * only the status line, Content-Length (or chunked framing) and the body, at a fraction of
 * `http.request`'s cost. One request at a time per connection (no pipelining); requests beyond
 * the pool size wait in a FIFO queue (their latency still counts from their planned time).
 */
import net from 'node:net';

export interface RawResponse {
  status: number;
  body: Buffer;
}

interface Pending {
  head: string;
  body: string;
  resolve: (response: RawResponse) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | null;
  done: boolean;
  /** Sent on a connection that had served a request before (a keep-alive race may close it). */
  reused: boolean;
  retried: boolean;
}

class Connection {
  readonly socket: net.Socket;
  current: Pending | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private status = 0;
  private bodyStart = -1;
  private length = -1;
  private chunked = false;
  closed = false;
  /** Closed on purpose (the pool was destroyed): in-flight requests are aborted, not retried. */
  aborting = false;
  private used = false;
  /** When it last finished a response (performance.now()). */
  idleSince = 0;
  private readonly onIdle: (connection: Connection) => void;
  private readonly onClose: (connection: Connection, retry: Pending | null) => void;

  constructor(host: string, port: number, onIdle: (connection: Connection) => void, onClose: (connection: Connection, retry: Pending | null) => void) {
    this.onIdle = onIdle;
    this.onClose = onClose;
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (data: Buffer) => this.receive(data));
    const close = (error?: Error) => {
      if (this.closed) return;
      this.closed = true;
      const pending = this.current;
      this.current = null;
      // The server closed an idle keep-alive connection as we reused it: send again once
      // elsewhere (the request never reached the application), as browsers and undici do.
      const retry =
        !this.aborting && pending && !pending.done && pending.reused && !pending.retried && this.bodyStart < 0 && this.buffer.length === 0 ? pending : null;
      if (retry) retry.retried = true;
      else if (pending && !pending.done) {
        pending.done = true;
        if (pending.timer) clearTimeout(pending.timer);
        const code = this.aborting ? 'ABORTED' : ((error as NodeJS.ErrnoException)?.code ?? 'ECONNRESET');
        pending.reject(Object.assign(new Error(error?.message ?? 'connection closed'), { code }));
      }
      this.onClose(this, retry);
    };
    this.socket.on('error', (error) => close(error));
    this.socket.on('close', () => close());
  }

  send(pending: Pending): void {
    pending.reused = this.used;
    this.used = true;
    this.current = pending;
    this.buffer = Buffer.alloc(0);
    this.bodyStart = -1;
    this.length = -1;
    this.chunked = false;
    this.socket.write(pending.head + pending.body);
  }

  private receive(data: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, data]) : data;
    if (!this.current) return;
    if (this.bodyStart < 0) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buffer.subarray(0, end).toString('latin1');
      this.status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      this.length = length ? Number(length[1]) : -1;
      this.chunked = !length && /\r\ntransfer-encoding:\s*chunked/i.test(head);
      this.bodyStart = end + 4;
    }
    let body: Buffer | null;
    if (this.length >= 0) {
      if (this.buffer.length - this.bodyStart < this.length) return;
      body = this.buffer.subarray(this.bodyStart, this.bodyStart + this.length);
    } else if (this.chunked) {
      body = this.dechunk();
      if (!body) return;
    } else {
      body = Buffer.alloc(0);
    }
    const pending = this.current;
    this.current = null;
    this.idleSince = performance.now();
    if (!pending.done) {
      pending.done = true;
      if (pending.timer) clearTimeout(pending.timer);
      pending.resolve({ status: this.status, body });
    }
    this.onIdle(this);
  }

  private dechunk(): Buffer | null {
    const parts: Buffer[] = [];
    let at = this.bodyStart;
    for (;;) {
      const lineEnd = this.buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const size = parseInt(this.buffer.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) return this.buffer.length >= lineEnd + 4 ? Buffer.concat(parts) : null;
      if (this.buffer.length < lineEnd + 2 + size + 2) return null;
      parts.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Below Node's default server keepAliveTimeout (5 s). */
const IDLE_LIMIT_MS = 4_000;

export class RawHttpPool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly queue: Pending[] = [];
  private readonly host: string;
  private readonly port: number;
  readonly hostHeader: string;
  private readonly maxConnections: number;

  constructor(baseUrl: string, maxConnections: number) {
    this.maxConnections = maxConnections;
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.hostHeader = url.host;
  }

  /** Sends a request; rejects with code `ETIMEDOUT` after `timeoutMs` (the connection is dropped). */
  request(method: string, path: string, headers: string, body: string, timeoutMs: number): Promise<RawResponse> {
    const head =
      `${method} ${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\nconnection: keep-alive\r\n${headers}` + `content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise<RawResponse>((resolve, reject) => {
      const pending: Pending = { head, body, resolve, reject, timer: null, done: false, reused: false, retried: false };
      pending.timer = setTimeout(() => {
        if (pending.done) return;
        pending.done = true;
        const index = this.queue.indexOf(pending);
        if (index >= 0) this.queue.splice(index, 1);
        for (const connection of this.all) if (connection.current === pending) connection.destroy();
        reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }));
      }, timeoutMs);
      this.dispatch(pending);
    });
  }

  private destroyed = false;

  private dispatch(pending: Pending): void {
    if (this.destroyed) {
      if (!pending.done) {
        pending.done = true;
        if (pending.timer) clearTimeout(pending.timer);
        pending.reject(Object.assign(new Error('aborted'), { code: 'ABORTED' }));
      }
      return;
    }
    // Node's server drops keep-alive connections idle for 5 s: do not race it with old ones.
    let connection = this.idle.pop() ?? null;
    while (connection && performance.now() - connection.idleSince > IDLE_LIMIT_MS) {
      this.all.delete(connection);
      connection.destroy();
      connection = this.idle.pop() ?? null;
    }
    connection ??= this.all.size < this.maxConnections ? this.open() : null;
    if (connection) connection.send(pending);
    else this.queue.push(pending);
  }

  private open(): Connection {
    const connection = new Connection(
      this.host,
      this.port,
      (c) => this.release(c),
      (c, retry) => {
        this.all.delete(c);
        const index = this.idle.indexOf(c);
        if (index >= 0) this.idle.splice(index, 1);
        if (retry) this.dispatch(retry);
        // A queued request takes a new connection.
        const next = this.queue.shift();
        if (next) this.dispatch(next);
      },
    );
    this.all.add(connection);
    return connection;
  }

  private release(connection: Connection): void {
    for (;;) {
      const next = this.queue.shift();
      if (!next) break;
      if (next.done) continue;
      return connection.send(next);
    }
    this.idle.push(connection);
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Fails every queued and in-flight request and closes the connections. */
  destroy(): void {
    this.destroyed = true;
    for (const pending of this.queue.splice(0)) {
      if (pending.done) continue;
      pending.done = true;
      if (pending.timer) clearTimeout(pending.timer);
      pending.reject(Object.assign(new Error('aborted'), { code: 'ABORTED' }));
    }
    for (const connection of [...this.all]) {
      connection.aborting = true;
      connection.destroy();
    }
  }
}
