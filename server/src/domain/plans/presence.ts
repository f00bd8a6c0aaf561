import type { HashEntry, KeyValueStore } from '../../kv/index.ts';
import type { UserRow } from '../../storage/rows.ts';

const PRESENCE_TTL_MS = 60_000;
const presenceKey = (formId: string) => `presence:${formId}`;

export interface Editor {
  userId: string;
  name: string;
  email: string;
  stepKey: string | null;
  lastSeen: string;
}

export interface Heartbeat {
  formId: string;
  user: Pick<UserRow, 'id' | 'name' | 'email'>;
  stepKey: string | null;
}

function presenceEntry({ formId, user, stepKey }: Heartbeat, lastSeen: string): HashEntry & { editor: Editor } {
  const editor: Editor = { userId: user.id, name: user.name, email: user.email, stepKey, lastSeen };
  return { key: presenceKey(formId), field: user.email, value: JSON.stringify(editor), ttlMs: PRESENCE_TTL_MS, editor };
}

/** A heartbeat: the user is on this plan (at this step) for the next 60 s. One entry per e-mail. */
export async function registerPresence(kv: KeyValueStore, formId: string, user: Heartbeat['user'], stepKey: string | null): Promise<Editor> {
  const entry = presenceEntry({ formId, user, stepKey }, new Date().toISOString());
  await kv.hashSet(entry.key, entry.field, entry.value, entry.ttlMs);
  return entry.editor;
}

/** Many heartbeats in one round trip (the periodic refresh of every open socket). */
export async function registerPresenceMany(kv: KeyValueStore, heartbeats: Heartbeat[]): Promise<void> {
  const lastSeen = new Date().toISOString();
  await kv.hashSetMany(heartbeats.map((heartbeat) => presenceEntry(heartbeat, lastSeen)));
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
