/**
 * What became of a followed trace file since it was last read: nothing, more bytes, or something
 * that makes what was read no longer its beginning — truncation, a new file at the path (log
 * rotation), a rewrite in place — or its deletion. Only a grown file can be read on from where
 * the ingest stopped; anything else is read again from the start or stops the follow.
 */
import { statSync } from 'node:fs';
import { identifyFile, type FileIdentity } from '../store/traceDatabase';

/** The file as last read: its inode (a rotated log is a new file at the same path) and the identity of the bytes read. */
export interface ReadSoFar {
  inode: number;
  ingested: FileIdentity;
}

export type FileChange =
  | { kind: 'none' }
  /** It grew to `size` bytes (or only its modification time changed: `size` is the old one), the bytes read unchanged. */
  | { kind: 'grown'; size: number }
  | { kind: 'replaced'; reason: string }
  | { kind: 'deleted'; reason: string };

export function readSoFar(path: string, ingested: FileIdentity): ReadSoFar {
  return { inode: statSync(path).ino, ingested };
}

export function observeFile(path: string, known: ReadSoFar): FileChange {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { kind: 'deleted', reason: 'the file was deleted; what was read stays shown, but its lines can no longer be read from it' };
    throw error;
  }
  const { ingested } = known;
  if (stats.ino !== known.inode) return { kind: 'replaced', reason: 'a new file replaced it at the same path (log rotation)' };
  if (stats.size < ingested.size) return { kind: 'replaced', reason: `it was truncated from ${ingested.size} to ${stats.size} bytes` };
  if (stats.size === ingested.size && stats.mtimeMs === ingested.mtimeMs) return { kind: 'none' };
  if (identifyFile(path, ingested.size)?.fingerprint !== ingested.fingerprint) return { kind: 'replaced', reason: 'the part already read was rewritten' };
  return { kind: 'grown', size: stats.size };
}
