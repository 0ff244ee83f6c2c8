/**
 * Open Recent: the last files opened, most recent first, kept as JSON in the user-data folder.
 * Files that no longer exist are dropped when the list is read.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

export const maxRecentFiles = 10;

const recentFilesSchema = z.array(z.string().min(1));

/** `list` with `path` moved (or added) to the front, at most `maxRecentFiles` long. */
export function withRecentFile(list: readonly string[], path: string): string[] {
  return [path, ...list.filter((entry) => entry !== path)].slice(0, maxRecentFiles);
}

export interface RecentFiles {
  /** The existing files, most recent first. */
  list(): string[];
  add(path: string): void;
  clear(): void;
}

function readList(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  // A hand-edited or truncated file starts the list afresh rather than breaking the menu.
  try {
    const parsed = recentFilesSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.slice(0, maxRecentFiles) : [];
  } catch {
    return [];
  }
}

/** Written beside the target and renamed over it, so a crash never leaves half a list. */
function writeList(file: string, list: readonly string[]): void {
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(list, null, 2)}\n`);
  renameSync(partial, file);
}

/** The recent-files list stored in `file`; `onChange` hears every change (to rebuild the menu). */
export function openRecentFiles(file: string, onChange: (list: string[]) => void): RecentFiles {
  const existing = (): string[] => readList(file).filter((path) => existsSync(path));
  const update = (list: string[]): void => {
    writeList(file, list);
    onChange(list);
  };
  return {
    list: existing,
    add: (path) => update(withRecentFile(existing(), path)),
    clear: () => update([]),
  };
}
