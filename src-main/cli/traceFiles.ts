/**
 * Turns the command line's paths into trace files: a file is taken as named; a directory is
 * walked (recursively, in name order) for files whose extension a trace can have, so
 * `loopscope analyze ~/.claude/projects` or `~/.codex/sessions` reads every session in it.
 */
import { readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { TraceFileError } from '../engine/engine';

const TRACE_EXTENSIONS = new Set(['.jsonl', '.ndjson', '.json', '.traj', '.eval']);

export interface TraceArgument {
  path: string;
  /** Found by walking a directory: a file there that no format recognises is skipped, not fatal. */
  fromDirectory: boolean;
}

function walk(directory: string, into: TraceArgument[]): void {
  const entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) walk(path, into);
    else if (entry.isFile() && TRACE_EXTENSIONS.has(extname(entry.name).toLowerCase())) into.push({ path, fromDirectory: true });
  }
}

export function expandTraceArguments(paths: readonly string[]): TraceArgument[] {
  const files: TraceArgument[] = [];
  for (const path of paths) {
    let isDirectory = false;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      // Not there: the file check that follows reports it with its reason.
    }
    if (!isDirectory) {
      files.push({ path, fromDirectory: false });
      continue;
    }
    const found: TraceArgument[] = [];
    walk(path, found);
    if (found.length === 0) throw new TraceFileError('not_found', path, `is a directory with no trace files (${[...TRACE_EXTENSIONS].join(', ')})`);
    files.push(...found);
  }
  return files;
}
