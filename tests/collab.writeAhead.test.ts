/**
 * The write-ahead of live documents (docs/collaboration.md, "Durability window"): a server process
 * killed with SIGKILL after relaying someone's typing, but before its debounced store, loses none
 * of it. The next process applies what was appended, and a client with no local state gets it all.
 *
 * Runs on the store the suite runs on: an embedded PGlite in a folder of its own (the second
 * process opens what the first left), or DATABASE_URL's PostgreSQL (and REDIS_URL's Redis).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as Y from 'yjs';
import { createTestDatabase } from '../server/src/testing/testDatabase.ts';
import { sharedStoreEnv, startServerProcess, type ServerProcess } from '../server/src/testing/serverProcess.ts';
import { clientWithToken, signIn, sessionToken } from '../server/src/testing/signIn.ts';
import { openLiveClient, textOf, type LiveClient } from '../server/src/testing/collab.ts';
import { HARBOR, PRINCIPAL_HARBOR } from '../server/src/testing/demoNames.ts';
import { formIdOf, readStep } from '../server/src/testing/plans.ts';
import { pause, waitFor } from '../server/src/testing/wait.ts';

const STEP = 'attendancePlan';
const QUESTION = 'att_barriers';
/** The durability window docs/collaboration.md promises: what was relayed this long ago is appended. */
const DURABILITY_WINDOW_MS = 1_000;
const WORDS = ['Late', 'buses', 'on', 'the', 'east', 'side,', 'winter', 'weather,', 'and', 'flu', 'season.'];

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string | undefined;
let env: Record<string, string>;
const servers: ServerProcess[] = [];
const clients: LiveClient[] = [];

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess(env);
  servers.push(server);
  return server;
}

async function open(server: ServerProcess, token: string, formId: string, label: string): Promise<LiveClient> {
  const client = await openLiveClient(server.url, token, formId, STEP, { label });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  database = await createTestDatabase();
  if (!database.databaseUrl) dataDir = await mkdtemp(path.join(os.tmpdir(), 'csp-write-ahead-'));
  env = {
    ...sharedStoreEnv(database.databaseUrl ?? '', database.databaseUrl ? process.env.REDIS_URL : undefined, 'write-ahead'),
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
    // No debounced store during the test: only the write-ahead can keep the typing.
    COLLAB_STORE_DEBOUNCE_MS: '600000',
  };
});

afterAll(async () => {
  for (const client of clients.splice(0)) client.destroy();
  for (const server of servers.splice(0)) await server.stop('SIGKILL');
  await database?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('write-ahead', () => {
  it('typing relayed by a process killed with SIGKILL before its store is all there after a restart, for a client with no local state', async () => {
    const first = await start();
    const session = await signIn(first.url, PRINCIPAL_HARBOR);
    const token = sessionToken(session);
    const formId = await formIdOf(session, HARBOR);
    // The step was never opened: its document is seeded now, and the typing lands on the seed.
    const writer = await open(first, token, formId, 'writer');
    const reader = await open(first, token, formId, 'reader');
    const text = textOf(writer.doc, QUESTION);
    const before = text.toString();
    // One keystroke group per event-loop turn, as a person types.
    for (const word of WORDS) {
      text.insert(text.length, ` ${word}`);
      await pause(10);
    }
    const typed = text.toString();
    expect(typed).not.toBe(before);
    await writer.settled();
    await waitFor('the reader to see the typing', () => textOf(reader.doc, QUESTION).toString() === typed);
    await pause(DURABILITY_WINDOW_MS);
    // Within its store debounce: the server has not stored the typing (its last "stored" lacks it).
    const storedClock = writer.stored ? (Y.decodeStateVector(writer.stored).get(writer.doc.clientID) ?? 0) : 0;
    expect(storedClock).toBeLessThan(Y.decodeStateVector(Y.encodeStateVector(writer.doc)).get(writer.doc.clientID)!);

    await first.stop('SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    // Both browsers are gone too: nobody can send the typing again.
    writer.destroy();
    reader.destroy();

    const second = await start();
    const fresh = await open(second, token, formId, 'fresh client');
    expect(textOf(fresh.doc, QUESTION).toString()).toBe(typed);
    // The load recorded it too: the step's answers say the same.
    const { stepData } = await readStep(clientWithToken(second, token), formId, STEP);
    expect(stepData.data[QUESTION]).toBe(typed);
  });
});
