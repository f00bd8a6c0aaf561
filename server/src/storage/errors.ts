function hasCode(error: unknown, code: string): boolean {
  for (let current = error as { code?: string; cause?: unknown } | undefined; current; current = current.cause as typeof current) {
    if (current.code === code) return true;
  }
  return false;
}

/** PostgreSQL's unique_violation, however the driver wraps it. */
export const isUniqueViolation = (error: unknown) => hasCode(error, '23505');

/** PostgreSQL's deadlock_detected: the transaction was rolled back and may simply be tried again. */
export const isDeadlock = (error: unknown) => hasCode(error, '40P01');
