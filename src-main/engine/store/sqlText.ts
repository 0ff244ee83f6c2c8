/** Pieces of SQL text the store's modules build statements from. */

/** Ids as an SQL list: they are integers the engine handed out, checked here because they are spliced into the text. */
export function idList(ids: readonly number[]): string {
  if (!ids.every((id) => Number.isSafeInteger(id))) throw new Error('source ids must be integers');
  return ids.join(', ');
}

/** `%text%` for LIKE, with the pattern characters of `text` escaped (ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
