/**
 * Turns the command line's paths into trace files: a file is taken as named; a directory is
 * walked (recursively, in name order) for files whose extension a trace can have, so
 * `loopscope analyze ~/.claude/projects` or `~/.codex/sessions` reads every session in it.
 */
import { readdirSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { companionOwnerFile, possibleCompanionFiles, TraceFileError } from '../engine';

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

/**
 * A session's sub-agent transcripts open with their session, linked to the calls that started
 * them: so a sub-agent file (named on the command line or found in a directory) whose session
 * lies beside it is read as that session — once, however many of its files are given — and a
 * file a directory walk found beside its session is not read again alone. A sub-agent file
 * without its session is read alone. `onOwner` hears of each file read as its session.
 */
export function withCompanionsInTheirTrace(files: readonly TraceArgument[], onOwner: (file: string, owner: string) => void = () => {}): TraceArgument[] {
  const walkedCompanions = new Set(files.filter((file) => file.fromDirectory).flatMap((file) => possibleCompanionFiles(resolve(file.path))));
  const seen = new Set<string>();
  const traces: TraceArgument[] = [];
  for (const file of files) {
    if (file.fromDirectory && walkedCompanions.has(resolve(file.path))) continue;
    const owner = companionOwnerFile(file.path);
    if (owner !== undefined) onOwner(file.path, owner);
    const trace = owner === undefined ? file : { path: owner, fromDirectory: file.fromDirectory };
    if (seen.has(resolve(trace.path))) continue;
    seen.add(resolve(trace.path));
    traces.push(trace);
  }
  return traces;
}
