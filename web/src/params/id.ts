import { ID_PATTERN } from '@csp/shared/api/common';

/** Record ids: 24 lowercase hex characters. */
export const id = (param: string): string | undefined => (ID_PATTERN.test(param) ? param : undefined);
