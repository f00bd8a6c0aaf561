/** `text` inside a LIKE/ILIKE pattern: its own `%`, `_` and `\` are matched literally. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** A LIKE/ILIKE pattern matching `text` anywhere. */
export function containsPattern(text: string): string {
  return `%${likeLiteral(text)}%`;
}
