import type { z } from 'zod';
import { isId } from '../storage/ids.ts';
import { invalidInput, notFound } from '../errors.ts';

/** No payload of this API nests deeper; anything deeper is refused before any recursive walk. */
export const MAX_INPUT_DEPTH = 64;

/** 400 when a parsed input nests arrays or objects deeper than MAX_INPUT_DEPTH (checked without recursion). */
export function assertShallow(input: unknown): void {
  const pending: [unknown, number][] = [[input, 0]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) throw invalidInput(`Invalid request: nested more than ${MAX_INPUT_DEPTH} levels deep`);
    for (const item of Array.isArray(value) ? value : Object.values(value)) if (item !== null && typeof item === 'object') pending.push([item, depth + 1]);
  }
}

/** A NUL or an unpaired surrogate cannot be stored as PostgreSQL text or jsonb: refuse it up front. */
function findUnstorableText(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') || !value.isWellFormed() ? path || 'value' : null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findUnstorableText(value[index], `${path}.${index}`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findUnstorableText(key, path) ?? findUnstorableText(item, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

/** Parses input with a zod schema; failures are a 400 naming each bad field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown, what = 'Invalid request'): z.infer<S> {
  // Bodies were checked for depth when read (app.ts); query strings are flat. The walk below is bounded.
  const unstorable = findUnstorableText(input, '');
  if (unstorable) throw invalidInput(`${what}: ${unstorable} contains characters that cannot be stored`);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const first = details[0];
  const message = first ? `${what}: ${first.path ? `${first.path}: ` : ''}${first.message}` : what;
  throw invalidInput(message, { details });
}

/** A path id that is not 24-hex cannot name any record. */
export function pathId(value: string | undefined, what = 'Not found'): string {
  if (!isId(value)) throw notFound(what);
  return value;
}
