import type { z } from 'zod';
import { isId } from '../storage/ids.ts';
import { HttpError, notFound } from './errors.ts';

/** Parses input with a zod schema; failures are a 400 naming each bad field. */
export function parse<S extends z.ZodType>(schema: S, input: unknown, what = 'Invalid request'): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  const first = details[0];
  const message = first ? `${what}: ${first.path ? `${first.path}: ` : ''}${first.message}` : what;
  throw new HttpError(400, message, { details });
}

/** A path id that is not 24-hex cannot name any record. */
export function pathId(value: string | undefined, what = 'Not found'): string {
  if (!isId(value)) throw notFound(what);
  return value;
}
