/** 32-bit FNV-1a of a text's UTF-16 code units, unsigned: a fast, stable hash for keys and buckets (not for security). */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash >>> 0;
}
