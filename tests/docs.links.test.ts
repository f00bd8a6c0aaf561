import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const documents = [
  'README.md',
  'BENCHMARKS.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Markdown links `[text](target)` and `[text](<target>)` that point into the repository. */
function localLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\((<[^>]+>|[^)\s]+)\)/g)]
    .map((match) => match[1]!.replace(/^<|>$/g, ''))
    .filter((target) => !/^(https?:|mailto:|#)/.test(target))
    .map((target) => decodeURI(target.split('#')[0]!));
}

// The docs are where a newcomer finds each rule by its file: a moved or renamed file must not leave them pointing nowhere.
describe('documentation links', () => {
  it.each(documents)('every file %s links to exists', (document) => {
    const path = join(root, document);
    const missing = localLinks(readFileSync(path, 'utf8')).filter((target) => !existsSync(resolve(dirname(path), target)));
    expect(missing).toEqual([]);
  });
});
