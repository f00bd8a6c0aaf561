import { randomBytes } from 'node:crypto';

import { ID_PATTERN } from '@csp/shared/api/common';

export { ID_PATTERN };

export function newId(): string {
  return randomBytes(12).toString('hex');
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}
