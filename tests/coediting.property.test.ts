/**
 * A randomized co-editing test on the real server with real Y.js providers, driving the binding the
 * browser uses (web/src/lib/collab/bindText.ts) through fields that behave as a browser's do
 * (value, selection, focus, input and composition events, Ctrl+Z):
 *
 * 3 to 5 people on one step type words at random places, delete words, undo and redo, compose
 * words as an IME does (intermediate text that must never be stored), add, remove and type in
 * table rows, go offline for random spells (some long enough for the document to be stored and
 * unloaded while they are away), and reload (a new document restored from the old one's state, as
 * IndexedDB restores it, with no undo history). After quiescence every document, the server's, the
 * stored state and the step's record are equal; every word nobody deleted or undid is there exactly
 * once (and a removed one comes back at most once per person who brings it back); nothing is there
 * that nobody typed, an IME's intermediate text included.
 *
 * Replay a run with COEDIT_SEED=<printed seed>; COEDIT_ROUNDS sets the rounds (the benchmark-size
 * run uses thousands); COEDIT_TRACE=1 prints each round's person, action and field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import * as Y from 'yjs';
import { ANSWERS_MAP, ROW_ID, collabDocumentName, newTableRow, readAnswers, writeCell, type StepAnswers, type TableAnswer } from '@csp/shared';
import { bindText } from '../web/src/lib/collab/bindText.ts';
import { startTestServer, type TestServer } from '../server/src/testing/testServer.ts';
import { signInAll, sessionToken } from '../server/src/testing/signIn.ts';
import { openLiveClient, rowsOf, waitForConvergence, type LiveClient } from '../server/src/testing/collab.ts';
import { PRINCIPAL_HARBOR, SUPERADMIN } from '../server/src/testing/demoNames.ts';
import { createPlan, readStep } from '../server/src/testing/plans.ts';
import { Random, seedFromEnv } from '../server/src/testing/random.ts';
import { pause, waitFor } from '../server/src/testing/wait.ts';

const STEP = 'attendancePlan';
const TEXT = 'att_barriers';
const TABLE = 'att_roles';
const COLUMNS = 4;
const ROUNDS = Number(process.env.COEDIT_ROUNDS ?? 300);

/**
 * A text field as the binding sees a browser's: its value and selection, its own document's focus,
 * and the events it listens to. Typing goes through it as a browser's does: the value changes,
 * then an `input` event.
 */
class BrowserField extends EventTarget {
  value = '';
  selectionStart = 0;
  selectionEnd = 0;
  readOnly = false;
  readonly ownerDocument = { activeElement: this as unknown };

  setSelectionRange(start: number, end: number) {
    this.selectionStart = Math.min(start, this.value.length);
    this.selectionEnd = Math.min(end, this.value.length);
  }

  /** Replaces the selection with `inserted`, as a keystroke or a paste does. */
  type(inserted: string, isComposing = false) {
    const { value, selectionStart: start, selectionEnd: end } = this;
    this.value = value.slice(0, start) + inserted + value.slice(end);
    this.setSelectionRange(start + inserted.length, start + inserted.length);
    this.dispatchEvent(Object.assign(new Event('input'), { isComposing, inputType: isComposing ? 'insertCompositionText' : 'insertText' }));
  }

  key(key: string, modifiers: { ctrlKey?: boolean; shiftKey?: boolean } = {}) {
    this.dispatchEvent(
      Object.assign(new Event('keydown', { cancelable: true }), { key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...modifiers }),
    );
  }
}

interface Person {
  label: string;
  token: string;
  live: LiveClient;
  field: BrowserField;
  unbind: () => void;
  /** The words this person typed since their last reload (what their undo can reach). */
  session: Set<string>;
  offline: boolean;
  /** A composition under way: the word it will commit, and where in its steps it is. */
  composing: { word: string; step: number } | null;
}

/** The plan's owner and a Super Admin, each in several tabs (every tab is one more person to the merge). */
const EDITORS = [PRINCIPAL_HARBOR, SUPERADMIN, PRINCIPAL_HARBOR, SUPERADMIN, PRINCIPAL_HARBOR];

let server: TestServer;
let tokens: string[];

beforeAll(async () => {
  server = await startTestServer();
  tokens = (await signInAll(server.url, EDITORS)).map(sessionToken);
});

afterAll(async () => {
  await server?.stop();
});

describe('co-editing, randomized', () => {
  it(`${ROUNDS} rounds of typing, deleting, undo, composition, rows and absences converge without losing or inventing a word`, async () => {
    const random = new Random(seedFromEnv('COEDIT_SEED'));
    console.log(`coediting.property: seed ${random.seed} (replay with COEDIT_SEED=${random.seed}), ${ROUNDS} rounds`);
    const admin = (await signInAll(server.url, [SUPERADMIN]))[0]!;
    const formId = await createPlan(admin, `Randomized ${random.seed}`);
    const documentName = collabDocumentName(formId, STEP);

    let nextWord = 0;
    /** Every word typed (into the text or a cell), and those that must survive (nobody deleted or undid them). */
    const typed = new Set<string>();
    const unstable = new Set<string>();
    /** Where each word came from, to explain a failure. */
    const where = new Map<string, string>();
    const deletedRows = new Set<string>();
    /** The row each word typed into a table went into. */
    const rowOf = new Map<string, string>();
    const word = (person: number) => `w${person}x${(nextWord++).toString(36)}`;

    const open = async (index: number, doc?: Y.Doc): Promise<Person> => {
      const live = await openLiveClient(server.url, tokens[index]!, formId, STEP, { label: `person ${index}`, ...(doc ? { doc } : {}) });
      const answers = live.doc.getMap(ANSWERS_MAP);
      // As the editor does once synced: every answer has its shared type before anyone types.
      if (!(answers.get(TEXT) instanceof Y.Text) || !(answers.get(TABLE) instanceof Y.Map)) {
        live.doc.transact(() => {
          if (!answers.has(TEXT)) answers.set(TEXT, new Y.Text());
          if (!answers.has(TABLE)) {
            const table = new Y.Map<unknown>();
            answers.set(TABLE, table);
            table.set('headers', Y.Array.from(['Role', 'First Name', 'Last Name', 'E-mail']));
            table.set('rows', new Y.Array());
          }
        });
      }
      const field = new BrowserField();
      const unbind = bindText(field as unknown as HTMLTextAreaElement, answers, TEXT);
      return { label: `person ${index}`, token: tokens[index]!, live, field, unbind, session: new Set(), offline: false, composing: null };
    };

    const count = 3 + random.int(3);
    const people: Person[] = [];
    for (let index = 0; index < count; index++) people.push(await open(index));

    const caretIn = (field: BrowserField) => {
      // A caret between words (or at either end), as people type new words.
      const gaps = [0, field.value.length, ...[...field.value.matchAll(/ /g)].map((match) => match.index)];
      const at = random.pick(gaps);
      field.setSelectionRange(at, at);
    };

    for (let round = 0; round < ROUNDS; round++) {
      const index = random.int(people.length);
      const person = people[index]!;
      const { field } = person;
      const choice = random.int(100);
      if (process.env.COEDIT_TRACE)
        console.log(
          `round ${round}: person ${index} ${person.composing ? 'composing' : choice} offline=${person.offline} field=${JSON.stringify(field.value)} caret=${field.selectionStart}`,
        );

      if (person.composing) {
        // The next step of the composition under way: intermediate text, then the commit.
        const { word: committed, step } = person.composing;
        if (step < 2) {
          // Replace the previous intermediate text (selected by the IME) with a longer one: "Q", "QZ".
          const shown = 'QZ'.slice(0, step + 1);
          const caret = field.selectionStart;
          field.setSelectionRange(caret - step, caret);
          field.type(shown, true);
          person.composing.step++;
        } else {
          const caret = field.selectionStart;
          field.setSelectionRange(caret - step, caret);
          field.type(` ${committed} `, true);
          field.dispatchEvent(new Event('compositionend'));
          person.composing = null;
          typed.add(committed);
          person.session.add(committed);
          where.set(committed, `composed by ${index} in round ${round}`);
        }
      } else if (choice < 35) {
        const token = word(index);
        caretIn(field);
        // Letter by letter, as keys are pressed.
        for (const letter of ` ${token} `) field.type(letter);
        typed.add(token);
        where.set(token, `typed by ${index} in round ${round}`);
        person.session.add(token);
      } else if (choice < 45) {
        const words = [...field.value.matchAll(/\S+/g)];
        if (words.length > 0) {
          const target = random.pick(words);
          field.setSelectionRange(target.index, target.index + target[0].length);
          field.type('');
          unstable.add(target[0]);
        }
      } else if (choice < 55) {
        field.key('z', { ctrlKey: true });
        // What this person typed (or removed) since their reload may come and go.
        for (const token of person.session) unstable.add(token);
      } else if (choice < 60) {
        field.key(random.chance(0.5) ? 'y' : 'z', { ctrlKey: true, shiftKey: random.chance(0.5) });
        for (const token of person.session) unstable.add(token);
      } else if (choice < 68) {
        caretIn(field);
        field.dispatchEvent(new Event('compositionstart'));
        person.composing = { word: word(index), step: 0 };
      } else if (choice < 80) {
        const rows = rowsOf(person.live.doc, TABLE);
        const action = random.int(3);
        if (action === 0 || rows.length === 0) {
          const cells = Array.from({ length: COLUMNS }, () => word(index));
          const row = newTableRow(cells);
          rows.push([row]);
          for (const cell of cells) {
            typed.add(cell);
            where.set(cell, `new row by ${index} in round ${round}`);
            rowOf.set(cell, String(row.get(ROW_ID)));
          }
        } else if (action === 1) {
          const row = rows.get(random.int(rows.length));
          // Whatever anyone typed into it goes with it, also what this person has not seen yet.
          deletedRows.add(String(row.get(ROW_ID)));
          const at = rows.toArray().findIndex((candidate) => candidate.get(ROW_ID) === row.get(ROW_ID));
          rows.delete(at, 1);
        } else {
          const row = rows.get(random.int(rows.length));
          const column = random.int(COLUMNS);
          const token = word(index);
          const cell = row.get(String(column));
          if (cell instanceof Y.Text) cell.insert(cell.length, ` ${token}`);
          else writeCell(row, column, token);
          typed.add(token);
          where.set(token, `cell of row ${String(row.get(ROW_ID))} by ${index} in round ${round}`);
          rowOf.set(token, String(row.get(ROW_ID)));
        }
      } else if (choice < 92) {
        if (person.offline) {
          await person.live.reconnect();
          person.offline = false;
        } else if (!person.composing) {
          person.live.disconnect();
          person.offline = true;
        }
      } else if (!person.composing) {
        // A reload: the document comes back from the browser's copy, with no undo history.
        person.unbind();
        const state = Y.encodeStateAsUpdate(person.live.doc);
        person.live.destroy();
        const restored = new Y.Doc();
        Y.applyUpdate(restored, state);
        people[index] = await open(index, restored);
      }
      // Now and then the network carries what was sent; sometimes long enough for a store (and an unload).
      if (random.chance(0.1)) await pause(random.chance(0.15) ? 2_500 : 50);
    }

    // Quiescence: compositions end, everyone is back, everything is sent and stored.
    for (const person of people) {
      if (person.composing) {
        const { word: committed, step } = person.composing;
        const caret = person.field.selectionStart;
        person.field.setSelectionRange(caret - step, caret);
        person.field.type(` ${committed} `, true);
        person.field.dispatchEvent(new Event('compositionend'));
        typed.add(committed);
      }
      if (person.offline) await person.live.reconnect();
    }
    const lives = people.map((person) => person.live);
    const converged = await waitForConvergence(lives, 30_000);
    for (const live of lives) await live.settled();
    for (const live of lives) await live.saved();
    const serverDocument = server.services.liveDocuments as unknown as { hocuspocus: { documents: Map<string, Y.Doc> } };
    expect(readAnswers(serverDocument.hocuspocus.documents.get(documentName)!)).toEqual(converged);
    // Each field shows the converged text (a composition's deferred remote changes included).
    for (const person of people) expect(person.field.value).toBe(String(converged[TEXT] ?? ''));
    await waitFor('the record to follow the converged document', async () => {
      const record = (await readStep(admin, formId, STEP)).stepData.data;
      if (!sameRecord(record, converged)) throw new Error(`record ${JSON.stringify(record)}\ndocument ${JSON.stringify(converged)}`);
      return true;
    });

    const words = [String(converged[TEXT] ?? ''), ...((converged[TABLE] as TableAnswer | undefined)?.rows.flat() ?? [])]
      .join(' ')
      .split(/\s+/)
      .filter(Boolean)
      .flatMap((run) => typedWordsOf(run, typed));
    const seen = new Map<string, number>();
    for (const token of words) seen.set(token, (seen.get(token) ?? 0) + 1);
    expect(
      [...seen].filter(([token, times]) => times > 1 && !unstable.has(token)).map(([token, times]) => `${token} ×${times} (${where.get(token)})`),
      'no word twice (unless two people each brought back a word they had removed: undo re-inserts, as in every editor)',
    ).toEqual([]);
    expect(
      [...seen.keys()].filter((token) => !typed.has(token)),
      'no word nobody typed (an IME’s intermediate text included)',
    ).toEqual([]);
    expect(
      [...typed]
        .filter((token) => !unstable.has(token) && !deletedRows.has(rowOf.get(token) ?? '') && !seen.has(token))
        .map((token) => `${token} (${where.get(token)})`),
      'every word nobody deleted or undid',
    ).toEqual([]);
    for (const person of people) person.unbind();
  }, 240_000);
});

/**
 * The words a run of non-space text is made of. Two people who each bring back a word (one undoes
 * its deletion, the other redoes its typing) put two copies at one place, with no space between
 * them; such a run is read as the typed words it is made of, when it is made only of typed words.
 * Anything else stays one run, and fails "no word nobody typed".
 */
function typedWordsOf(run: string, typed: ReadonlySet<string>): string[] {
  if (typed.has(run)) return [run];
  // The words that make up run[from…], or null.
  const split = (from: number): string[] | null => {
    if (from === run.length) return [];
    for (let to = run.length; to > from; to--) {
      const word = run.slice(from, to);
      const rest = typed.has(word) ? split(to) : null;
      if (rest) return [word, ...rest];
    }
    return null;
  };
  return split(0) ?? [run];
}

/** The record holds the document's answers (a blank answer is no answer). */
function sameRecord(record: Record<string, unknown>, document: StepAnswers): boolean {
  const blank = (value: unknown) =>
    value === undefined || value === null || value === '' || (typeof value === 'object' && (value as TableAnswer).rows?.length === 0);
  const keys = new Set([...Object.keys(record), ...Object.keys(document)]);
  return [...keys].every((key) => (blank(record[key]) && blank(document[key])) || isDeepStrictEqual(record[key], document[key]));
}
