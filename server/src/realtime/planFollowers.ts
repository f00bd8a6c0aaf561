import { randomBytes } from 'node:crypto';
import type { Server as SocketServer } from 'socket.io';
import type { Logger } from '../logger.ts';

const PLAN_ROOM_PREFIX = 'plan:';
const SYNC_RETRY_MS = 5_000;

interface FollowedChange {
  server: string;
  formId: string;
  followed: boolean;
}

/**
 * Which plans someone follows (a socket in the plan's room), on this process and on the others, so
 * a plan event nobody can receive (most autosaves: `step:saved`) is not published at all.
 *
 * Each process tells the others when one of its plan rooms opens or closes, and answers a newcomer
 * (or a process back from a Redis outage) with all of its rooms. Whenever this process cannot be
 * sure (before its first answer, while Redis is away) it treats every plan as followed: a wrong
 * "yes" costs a publish, a wrong "no" would lose an event. A process that dies leaves its rooms
 * counted until the others restart; that only costs publishes.
 */
export class PlanFollowers {
  private readonly server = randomBytes(6).toString('hex');
  /** Plans followed on other processes, with those processes. */
  private readonly remote = new Map<string, Set<string>>();
  private synced: boolean;
  private retry: NodeJS.Timeout | undefined;
  private readonly io: SocketServer;
  private readonly logger: Logger;

  constructor(io: SocketServer, logger: Logger, shared: boolean) {
    this.io = io;
    this.logger = logger;
    this.synced = !shared;
    if (!shared) return;
    const adapter = io.of('/').adapter;
    adapter.on('create-room', (room: string) => this.announce(room, true));
    adapter.on('delete-room', (room: string) => this.announce(room, false));
    io.on('plan-followed', (change: FollowedChange) => this.apply(change));
    io.on('plan-followers', (reply: (answer: { server: string; formIds: string[] }) => void) => reply({ server: this.server, formIds: this.localPlans() }));
  }

  /** Whether an event to this plan's room can reach anyone. */
  isFollowed(formId: string): boolean {
    return !this.synced || this.io.of('/').adapter.rooms.has(`${PLAN_ROOM_PREFIX}${formId}`) || this.remote.has(formId);
  }

  /**
   * Asks every other process for its followed plans; until they answer, every plan counts as
   * followed. Answers only add: a room closed meanwhile is told by its own message, and one
   * opened after an answer was sent must not be undone by that answer.
   */
  sync(): void {
    this.synced = false;
    clearTimeout(this.retry);
    // The Redis adapter gives up on missing answers after its request timeout (5 s).
    this.io.serverSideEmit('plan-followers', (error: Error | null, answers: { server: string; formIds: string[] }[]) => {
      if (error) {
        this.logger.warn({ err: error }, 'followed plans of other processes unknown; publishing every plan event');
        this.retry = setTimeout(() => this.sync(), SYNC_RETRY_MS);
        this.retry.unref();
        return;
      }
      for (const answer of answers) for (const formId of answer.formIds) this.apply({ server: answer.server, formId, followed: true });
      this.synced = true;
    });
  }

  stop(): void {
    clearTimeout(this.retry);
  }

  /** Redis is away: other processes' rooms may change unheard. */
  unsure(): void {
    this.synced = false;
  }

  private localPlans(): string[] {
    return [...this.io.of('/').adapter.rooms.keys()].filter((room) => room.startsWith(PLAN_ROOM_PREFIX)).map((room) => room.slice(PLAN_ROOM_PREFIX.length));
  }

  private announce(room: string, followed: boolean) {
    if (!room.startsWith(PLAN_ROOM_PREFIX)) return;
    this.io.serverSideEmit('plan-followed', { server: this.server, formId: room.slice(PLAN_ROOM_PREFIX.length), followed } satisfies FollowedChange);
  }

  private apply({ server, formId, followed }: FollowedChange) {
    const servers = this.remote.get(formId) ?? new Set<string>();
    if (followed) servers.add(server);
    else servers.delete(server);
    if (servers.size > 0) this.remote.set(formId, servers);
    else this.remote.delete(formId);
  }
}
