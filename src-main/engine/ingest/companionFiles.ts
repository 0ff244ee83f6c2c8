/**
 * Files that belong to a trace and open with it (see `FormatAdapter.companions`): a Claude Code
 * session's sub-agent transcripts. Listed in name order, so a database built twice holds them in
 * the same order.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FormatAdapter } from '../adapters/formatAdapter';
import { formatAdapters } from '../adapters/registry';

export function companionFiles(adapter: FormatAdapter, path: string): string[] {
  const place = adapter.companions?.(path);
  if (place === undefined) return [];
  let entries;
  try {
    entries = readdirSync(place.directory, { withFileTypes: true });
  } catch {
    // No such directory (the usual case) or one that cannot be listed: the trace opens alone.
    return [];
  }
  return entries
    .filter((entry) => entry.isFile() && place.name.test(entry.name))
    .map((entry) => join(place.directory, entry.name))
    .sort();
}

/**
 * The files that would open with `path` whatever its format turns out to be, so that a directory
 * walk does not open a sub-agent transcript twice: once with its session, once alone.
 */
export function possibleCompanionFiles(path: string): string[] {
  return formatAdapters.flatMap((adapter) => companionFiles(adapter, path));
}
