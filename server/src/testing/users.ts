/**
 * Users straight from the database: looked up by e-mail or id, or inserted (no API call, no rate
 * limit) so that each test has fresh users of its own.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { TestServer } from './testServer.ts';
import { users } from '../storage/schema.ts';
import { newId } from '../storage/ids.ts';
import type { UserRow } from '../storage/rows.ts';

/** A user's stored row by e-mail, or undefined when there is none (a deleted user, a refused import). */
export async function findUserByEmail(server: TestServer, email: string): Promise<UserRow | undefined> {
  const [row] = await server.services.storage.db.select().from(users).where(eq(users.email, email)).limit(1);
  return row;
}

/** A user's stored row by e-mail; a test naming a user who is not there fails at once. */
export async function userByEmail(server: TestServer, email: string): Promise<UserRow> {
  const row = await findUserByEmail(server, email);
  if (!row) throw new Error(`no user ${email}`);
  return row;
}

export async function userById(server: TestServer, id: string): Promise<UserRow | undefined> {
  const [row] = await server.services.storage.db.select().from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function allUsers(server: TestServer): Promise<UserRow[]> {
  return server.services.storage.db.select().from(users);
}

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
