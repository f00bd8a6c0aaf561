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

const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/**
 * A NUL or an unpaired surrogate cannot be stored as PostgreSQL text or jsonb: refuse it up front.
 * The path of the offending value is built only once one is found (every request walks its input).
 */
function findUnstorableText(value: unknown): string | null {
  if (typeof value === 'string') return unstorable(value) ? '' : null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findUnstorableText(value[index]);
      if (found !== null) return joinPath(String(index), found);
    }
  } else if (value && typeof value === 'object') {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (unstorable(key)) return '';
      const found = findUnstorableText((value as Record<string, unknown>)[key]);
      if (found !== null) return joinPath(key, found);
    }
  }
  return null;
}

const joinPath = (head: string, rest: string) => (rest ? `${head}.${rest}` : head);

/** Parses input with a zod schema; failures are a 400 naming each bad field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown, what = 'Invalid request'): z.infer<S> {
  // Bodies were checked for depth when read (app.ts); query strings are flat. The walk below is bounded.
  const unstorablePath = findUnstorableText(input);
  if (unstorablePath !== null) throw invalidInput(`${what}: ${unstorablePath || 'value'} contains characters that cannot be stored`);
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
