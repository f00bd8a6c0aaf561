import { eq } from 'drizzle-orm';
import type { TestServer } from './testServer.ts';
import { users } from '../storage/schema.ts';
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
