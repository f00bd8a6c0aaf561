import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The application's version: the `version` of the repository's root package.json, read once. */
export function appVersion(): string | undefined {
  if (cached === undefined) {
    try {
      const root = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
      cached = typeof root.version === 'string' ? root.version : '';
    } catch {
      cached = '';
    }
  }
  return cached || undefined;
}
