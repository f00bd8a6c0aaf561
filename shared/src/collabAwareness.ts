import { z } from 'zod';
import * as Y from 'yjs';

/**
 * What each person's awareness state carries on a step document (docs/collaboration.md): who they
 * are, and where their caret and selection are. `anchor` and `head` are Y.js relative positions
 * (encoded, then base64) in the answer's Y.Text, or in a table cell's (`row` is the row's id,
 * `column` its index), so they follow the text as anyone edits it; both are null in a field
 * without text (a choice, a checkbox).
 */
export const awarenessUserSchema = z.object({ id: z.string(), name: z.string(), color: z.string() });

export const awarenessCursorSchema = z.object({
  questionId: z.string(),
  row: z.string().optional(),
  column: z.number().int().min(0).optional(),
  anchor: z.string().nullable(),
  head: z.string().nullable(),
});

export const awarenessStateSchema = z.object({
  user: awarenessUserSchema,
  cursor: awarenessCursorSchema.nullable().optional(),
});

export type AwarenessUser = z.infer<typeof awarenessUserSchema>;
export type AwarenessCursor = z.infer<typeof awarenessCursorSchema>;
export type AwarenessState = z.infer<typeof awarenessStateSchema>;

/** A relative position as awareness carries it. */
export function encodePosition(position: Y.RelativePosition): string {
  return btoa(String.fromCharCode(...Y.encodeRelativePosition(position)));
}

/** The relative position of `encodePosition`, or null for anything else. */
export function decodePosition(encoded: string | null): Y.RelativePosition | null {
  if (!encoded) return null;
  try {
    return Y.decodeRelativePosition(Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)));
  } catch {
    return null;
  }
}
