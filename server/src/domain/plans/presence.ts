import type { KeyValueStore } from '../../kv/index.ts';
import type { UserRow } from '../../auth/sessions.ts';

export const PRESENCE_TTL_MS = 60_000;
const presenceKey = (formId: string) => `presence:${formId}`;

export interface Editor {
  userId: string;
  name: string;
  email: string;
  stepKey: string | null;
  lastSeen: string;
}

/** A heartbeat: the user is on this plan (at this step) for the next 60 s. One entry per e-mail. */
export async function registerPresence(kv: KeyValueStore, formId: string, user: UserRow, stepKey: string | null): Promise<Editor> {
  const editor: Editor = { userId: user.id, name: user.name, email: user.email, stepKey, lastSeen: new Date().toISOString() };
  await kv.hashSet(presenceKey(formId), user.email, JSON.stringify(editor), PRESENCE_TTL_MS);
  return editor;
}

export async function listPresence(kv: KeyValueStore, formId: string): Promise<Editor[]> {
  const entries = await kv.hashGetAll(presenceKey(formId));
  return Object.values(entries)
    .map((value) => JSON.parse(value) as Editor)
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function leavePresence(kv: KeyValueStore, formId: string, email: string): Promise<void> {
  return kv.hashDelete(presenceKey(formId), email);
}
