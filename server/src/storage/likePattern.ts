/** A LIKE/ILIKE pattern matching `text` anywhere: the text's own `%`, `_` and `\` are matched literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
