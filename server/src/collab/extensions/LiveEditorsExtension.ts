import type { Connection, Extension, connectedPayload, onDisconnectPayload } from '@hocuspocus/server';
import type { KeyValueStore } from '../../kv/index.ts';
import { SlicedHeartbeat } from '../../kv/slicedHeartbeat.ts';
import type { Logger } from '../../logger.ts';
import type { ConnectionContext } from '../connectionContext.ts';

const LIVE_TTL_MS = 120_000;
const LIVE_REFRESH_MS = 45_000;
/** A fifteenth of the connections every 3 s. */
const LIVE_REFRESH_SLICES = 15;
const liveKey = (documentName: string) => `collab:live:${documentName}`;

export interface OpenConnection {
  connection: Connection<ConnectionContext>;
  context: ConnectionContext;
  documentName: string;
  /** The refresher's slice that marks this connection again. */
  heartbeatSlice: number;
}

/**
 * Who edits each step document live. This process's open connections are known here; every
 * process also marks its connections in the shared store (refreshed while open, lapsing with a
 * killed process), so a REST save can tell whether its author's keystrokes already merged
 * through the document on another process.
 */
export class LiveEditorsExtension implements Extension {
  readonly extensionName = 'csp-live-editors';
  private readonly open = new Map<string, OpenConnection>();
  private readonly kv: KeyValueStore;
  private readonly logger: Logger;
  private readonly heartbeat: SlicedHeartbeat;

  constructor(kv: KeyValueStore, logger: Logger) {
    this.kv = kv;
    this.logger = logger;
    this.heartbeat = new SlicedHeartbeat(LIVE_REFRESH_MS, LIVE_REFRESH_SLICES, (slice) => this.refreshMarks(slice));
    // Redis back (perhaps empty): marks again at once, not at the next tick, or live editors count as not live.
    kv.onReconnect(() => this.refreshMarks());
  }

  async connected({ connection, context, documentName, socketId }: connectedPayload<ConnectionContext>) {
    this.open.set(socketId, { connection, context, documentName, heartbeatSlice: this.heartbeat.nextSlice() });
    await this.kv
      .hashSet(liveKey(documentName), `${context.userId}:${socketId}`, '1', LIVE_TTL_MS)
      .catch((error: unknown) => this.logger.warn({ err: error, documentName }, 'live editor not marked; the heartbeat marks it when Redis is back'));
  }

  async onDisconnect({ context, documentName, socketId }: onDisconnectPayload<ConnectionContext>) {
    this.open.delete(socketId);
    if (context?.userId) {
      await this.kv
        .hashDelete(liveKey(documentName), `${context.userId}:${socketId}`)
        .catch((error: unknown) => this.logger.warn({ err: error, documentName }, 'live editor mark not removed; it lapses on its own'));
    }
  }

  /** This process's open connections. */
  connections(): IterableIterator<OpenConnection> {
    return this.open.values();
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * Whether the user edits the document live: this process's own connections decide first; other
   * processes' only through their marks in Redis, counted as not live while Redis cannot answer.
   */
  async isLive(documentName: string, userId: string): Promise<boolean> {
    for (const entry of this.open.values()) if (entry.documentName === documentName && entry.context.userId === userId) return true;
    try {
      const fields = Object.keys(await this.kv.hashGetAll(liveKey(documentName)));
      return fields.some((field) => field.slice(0, field.indexOf(':')) === userId);
    } catch (error) {
      this.logger.warn({ err: error, documentName }, 'live editors of other processes unknown: Redis unavailable');
      return false;
    }
  }

  /** This process's marks, written again: the slice's open connections, or without a slice every one. */
  private refreshMarks(slice?: number) {
    const marks = [...this.open]
      .filter(([, open]) => SlicedHeartbeat.covers(slice, open.heartbeatSlice))
      .map(([socketId, { context, documentName }]) => ({
        key: liveKey(documentName),
        field: `${context.userId}:${socketId}`,
        value: '1',
        ttlMs: LIVE_TTL_MS,
      }));
    void this.kv.hashSetMany(marks).catch((error: unknown) => this.logger.warn({ err: error }, 'live-editor marks not refreshed; retrying at their next turn'));
  }

  stop(): void {
    this.heartbeat.stop();
  }
}
