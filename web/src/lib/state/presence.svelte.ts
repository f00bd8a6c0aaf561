import type { Editor } from '@csp/shared/api/forms';
import { presenceEventSchema } from '@csp/shared/api/realtime';
import { realtime } from '#lib/realtime/socket.svelte.ts';

/** Dark enough for white text at WCAG AA contrast (at least 4.5:1), and told apart from each other. */
const PERSON_COLOURS = ['#1f4e8c', '#8a1c4a', '#2e6b2e', '#6b3fa0', '#9a3412', '#0f5f63', '#7a5200', '#3f4c5a', '#a3195b', '#245a3a'];

/** A person's colour, the same in every tab and for every viewer (derived from their id). */
export function colourFor(userId: string): string {
  let hash = 0;
  for (const char of userId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PERSON_COLOURS[hash % PERSON_COLOURS.length]!;
}

export function initialsOf(name: string): string {
  const parts = name.trim().split(/\s+/);
  return ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts.at(-1)?.[0] ?? '') : '')).toUpperCase() || '?';
}

/**
 * Who is in a plan right now and on which step: pushed by the realtime gateway on every join,
 * move and leave (presence lapses 60 s after a tab's last heartbeat).
 */
export class PresenceState {
  editors = $state<Editor[]>([]);
  /** Presence events received so far: a list read over REST must not overwrite a newer event. */
  private received = 0;
  private readonly stop: () => void;

  constructor(formId: string, initial: Editor[] = []) {
    this.editors = initial;
    this.stop = realtime.on('presence', presenceEventSchema, (event) => {
      if (event.formId !== formId) return;
      this.received++;
      this.editors = event.editors;
    });
  }

  /** Seeds the list from the REST presence route, unless an event overtook the read. */
  async read(list: () => Promise<Editor[]>): Promise<void> {
    const before = this.received;
    const editors = await list();
    if (this.received === before) this.editors = editors;
  }

  on(stepKey: string): Editor[] {
    return this.editors.filter((editor) => editor.stepKey === stepKey);
  }

  /** Whether the person is on that step now. */
  isOn(userId: string, stepKey: string): boolean {
    return this.editors.some((editor) => editor.userId === userId && editor.stepKey === stepKey);
  }

  destroy(): void {
    this.stop();
  }
}
