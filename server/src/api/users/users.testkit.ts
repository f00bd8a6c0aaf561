/**
 * Test-only helpers shared by the Users API tests (imported by the *.test.ts files beside it).
 * Targets are inserted straight into the database so each test row has fresh users of its own.
 */
import { randomBytes } from 'node:crypto';
import { desc, eq } from 'drizzle-orm';
import type { TestServer } from '../../testing/testServer.ts';
import { auditLogs, users } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import type { UserRow } from '../../storage/rows.ts';

export const HARBOR = 'Harbor View Academy';
export const RIVERSIDE = 'Riverside Learning Center';
export const DISTRICT = 'District Office';

/** An e-mail nobody has used yet, in the allowed domain. */
export function freshEmail(tag = 'user'): string {
  return `${tag}.${randomBytes(4).toString('hex')}@example.org`;
}

/** Inserts a user directly (no API call, no rate limit) and returns the stored row. */
export async function insertUser(
  server: TestServer,
  fields: { level: number; schoolName: string; isActive?: boolean; email?: string; name?: string; title?: string; permissions?: Record<string, boolean> },
): Promise<UserRow> {
  const [row] = await server.services.storage.db
    .insert(users)
    .values({
      id: newId(),
      email: fields.email ?? freshEmail(`l${fields.level}`),
      name: fields.name ?? `Test User L${fields.level}`,
      level: fields.level,
      schoolName: fields.schoolName,
      title: fields.title ?? null,
      isActive: fields.isActive ?? true,
      permissions: fields.permissions ?? {},
    })
    .returning();
  return row!;
}

export async function userById(server: TestServer, id: string): Promise<UserRow | undefined> {
  const [row] = await server.services.storage.db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function allUsers(server: TestServer): Promise<UserRow[]> {
  return server.services.storage.db.select().from(users);
}

/** Audit records, newest first, straight from the table. */
export async function auditRecords(server: TestServer) {
  return server.services.storage.db.select().from(auditLogs).orderBy(desc(auditLogs.createdAt), desc(auditLogs.id));
}

/** The client address the server should record for a client (one of its X-Forwarded-For entries). */
export function forwardedAddresses(forwardedFor: string): string[] {
  return forwardedFor.split(',').map((part) => part.trim());
}
