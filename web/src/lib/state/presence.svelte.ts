import type { Editor } from '@csp/shared/api/forms';
import { presenceEventSchema } from '@csp/shared/api/realtime';
import { realtime } from '#lib/realtime/socket.svelte.ts';

/** A person's colour, the same in every tab and for every viewer (derived from their id). */
export function colourFor(userId: string): string {
  let hash = 0;
  for (const char of userId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  // Dark enough for white initials (WCAG AA contrast) at any hue.
  return `hsl(${hash % 360} 70% 32%)`;
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
  private readonly stop: () => void;

  constructor(formId: string, initial: Editor[] = []) {
    this.editors = initial;
    this.stop = realtime.on('presence', presenceEventSchema, (event) => {
      if (event.formId === formId) this.editors = event.editors;
    });
  }

  on(stepKey: string): Editor[] {
    return this.editors.filter((editor) => editor.stepKey === stepKey);
  }

  destroy(): void {
    this.stop();
  }
}
