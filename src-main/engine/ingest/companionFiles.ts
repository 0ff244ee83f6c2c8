/**
 * Files that belong to a trace and open with it (see `FormatAdapter.companions`): a Claude Code
 * session's sub-agent transcripts. Listed in name order, so a database built twice holds them in
 * the same order.
 *
 * Symbolic links: a trace opened through a link has two places its companions can lie — beside
 * the link (where the user put it, e.g. a folder of links to sessions) and beside the file it
 * points to (where the tool wrote them). Both are looked in; a file found in both (the same file
 * by its real path) is listed once, by its path on the link's side. A companion that is itself a
 * link to a file counts as a file.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { FormatAdapter } from '../adapters/formatAdapter';
import { formatAdapters } from '../adapters/registry';

/** `path` as named and, when it is reached through a link, the file it points to. */
function namedAndReal(path: string): string[] {
  const named = resolve(path);
  let real: string;
  try {
    real = realpathSync(named);
  } catch {
    return [named];
  }
  return real === named ? [named] : [named, real];
}

/** The folders `adapter` looks in for the companions of `path` (the link's side first). */
export function companionDirectories(adapter: FormatAdapter, path: string): string[] {
  const directories = namedAndReal(path).flatMap((candidate) => {
    const place = adapter.companions?.(candidate);
    return place === undefined ? [] : [place.directory];
  });
  return [...new Set(directories)];
}

function isFileOrLinkToFile(directory: string, name: string): boolean {
  try {
    return statSync(join(directory, name)).isFile();
  } catch {
    // A dangling link, or one that cannot be followed.
    return false;
  }
}

export function companionFiles(adapter: FormatAdapter, path: string): string[] {
  const found = new Map<string, string>();
  for (const candidate of namedAndReal(path)) {
    const place = adapter.companions?.(candidate);
    if (place === undefined) continue;
    let names: string[];
    try {
      names = readdirSync(place.directory);
    } catch {
      // No such directory (the usual case) or one that cannot be listed: nothing opens from here.
      continue;
    }
    for (const name of names) {
      if (!place.name.test(name) || !isFileOrLinkToFile(place.directory, name)) continue;
      const file = join(place.directory, name);
      const real = realpathSync(file);
      if (!found.has(real)) found.set(real, file);
    }
  }
  // In name order whichever side a file was found on; the same name on both sides (two different files) by path.
  const byName = (file: string) => `${basename(file)}\u0000${file}`;
  return [...found.values()].sort((a, b) => (byName(a) < byName(b) ? -1 : 1));
}

/**
 * The files that would open with `path` whatever its format turns out to be, so that a directory
 * walk does not open a sub-agent transcript twice: once with its session, once alone.
 */
export function possibleCompanionFiles(path: string): string[] {
  return formatAdapters.flatMap((adapter) => companionFiles(adapter, path));
}

/**
 * The trace file that opens `path` as one of its companions, when there is one beside it (a
 * sub-agent transcript's session), looked for beside `path` as named and beside the file it
 * links to; else undefined. Opening the owner opens `path` with it, linked to the call that
 * started it.
 */
export function companionOwnerFile(path: string): string | undefined {
  for (const candidate of namedAndReal(path)) {
    for (const adapter of formatAdapters) {
      const owner = adapter.companionOwner?.(candidate);
      if (owner === undefined || !isFileOrLinkToFile(dirname(owner), basename(owner))) continue;
      const opensIt = companionFiles(adapter, owner).some((companion) => sameFile(companion, candidate));
      if (opensIt) return owner;
    }
  }
  return undefined;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
