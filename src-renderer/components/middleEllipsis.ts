/**
 * Text cut in the middle to at most `max` characters: ids and paths differ at their ends (a
 * sub-agent's `…/agent-a1b2`, a file name), which an ellipsis at the end would hide. Counts code
 * points, so an emoji or other astral character is never split in two.
 */
export function middleEllipsis(text: string, max: number): string {
  const characters = Array.from(text);
  if (characters.length <= max) return text;
  if (max < 3) return characters.slice(0, max).join('');
  const kept = max - 1;
  // The end tells more apart than the start: it keeps the larger half.
  const head = Math.floor(kept / 2);
  const tail = kept - head;
  return `${characters.slice(0, head).join('')}…${characters.slice(characters.length - tail).join('')}`;
}
