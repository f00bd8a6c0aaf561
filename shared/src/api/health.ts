import { z } from 'zod';
import { mailHealthSchema } from '../mail.ts';

const probeSchema = z.enum(['ok', 'error']);

/** `GET /api/health` (no session): 200 when healthy, 503 with the same body when degraded. */
export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  database: probeSchema,
  /** `not configured`: no REDIS_URL, the shared store lives in this process. */
  redis: z.enum(['ok', 'error', 'not configured']),
  store: z.string(),
});
export type Health = z.infer<typeof healthSchema>;

/** How a live server shares its events with other server processes: Redis, or none (one process). */
const sharingSchema = z.enum(['redis', 'in-process']);

/** The Socket.IO gateway of the answering process: its open sockets and the people behind them. */
export const realtimeHealthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  connections: z.number().int(),
  users: z.number().int(),
  sharing: sharingSchema,
});
export type RealtimeHealth = z.infer<typeof realtimeHealthSchema>;

/** The collaboration (Hocuspocus) server of the answering process: documents loaded, connections open. */
export const collaborationHealthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  documents: z.number().int(),
  connections: z.number().int(),
  sharing: sharingSchema,
});
export type CollaborationHealth = z.infer<typeof collaborationHealthSchema>;

/** `GET /api/admin/health` (Super Admins): the probes, counts, migrations, process, live servers and version. */
export const adminHealthSchema = healthSchema.extend({
  counts: z.object({
    users: z.number().int(),
    activeUsers: z.number().int(),
    plans: z.number().int(),
    sessions: z.number().int(),
    collabDocuments: z.number().int(),
    clientErrorsToday: z.number().int(),
  }),
  migrations: z.array(z.object({ hash: z.string(), generatedAt: z.string() })),
  process: z.object({ pid: z.number().int(), uptimeSeconds: z.number().int(), rssBytes: z.number().int(), node: z.string() }),
  /** The application's version (the root package.json), when known. */
  version: z.string().optional(),
  realtime: realtimeHealthSchema.optional(),
  collaboration: collaborationHealthSchema.optional(),
  /** Outbound e-mail: the queue, the last day's sending, failures. */
  mail: mailHealthSchema.optional(),
});
export type AdminHealth = z.infer<typeof adminHealthSchema>;
