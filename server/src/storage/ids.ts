import { randomBytes } from 'node:crypto';

/** 24 lowercase hex characters, like the original application's object ids. */
export const ID_PATTERN = /^[0-9a-f]{24}$/;

export function newId(): string {
  return randomBytes(12).toString('hex');
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
