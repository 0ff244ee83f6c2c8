/**
 * Where a trace's database lives and whether it can be reused. Each trace file gets its own
 * SQLite file in the cache directory (with the files that open with it, see
 * `FormatAdapter.companions`); it is reused only when the file is unchanged (same size,
 * modification time and a hash of its first and last bytes) and its ingest completed. Anything
 * else — a changed file, an interrupted ingest, a corrupt or foreign database — is rebuilt from the
 * trace, which is always the source of truth.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { createSchema, SCHEMA_VERSION, storedSchemaVersion } from './schema';

export interface FileIdentity {
  path: string;
  size: number;
  mtimeMs: number;
  fingerprint: string;
}

export type TraceFileErrorCode = 'not_found' | 'is_directory' | 'not_readable' | 'not_a_file' | 'io_error' | 'unknown_format';

/** A trace file that cannot be read at all; carries a one-line reason for the user. */
export class TraceFileError extends Error {
  constructor(
    readonly code: TraceFileErrorCode,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

const FINGERPRINT_EDGE_BYTES = 64 * 1024;

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

/**
 * The file's identity now; with `prefixBytes`, the identity of its first that many bytes (a file
 * that grew: its size is theirs, its fingerprint hashes their edges), or null when it has fewer.
 */
export function identifyFile(path: string): FileIdentity;
export function identifyFile(path: string, prefixBytes: number): FileIdentity | null;
export function identifyFile(path: string, prefixBytes?: number): FileIdentity | null {
  const absolute = resolve(path);
  let stats;
  try {
    stats = statSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new TraceFileError('not_found', path, 'no such file');
    if (code === 'EACCES' || code === 'EPERM') throw new TraceFileError('not_readable', path, 'permission denied');
    throw new TraceFileError('io_error', path, (error as Error).message);
  }
  if (stats.isDirectory()) throw new TraceFileError('is_directory', path, 'is a directory, not a trace file');
  if (!stats.isFile()) throw new TraceFileError('not_a_file', path, 'is not a regular file');
  let fd: number;
  try {
    fd = openSync(absolute, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') throw new TraceFileError('not_readable', path, 'permission denied');
    throw new TraceFileError('io_error', path, (error as Error).message);
  }
  try {
    const size = prefixBytes ?? stats.size;
    if (size > stats.size) return null;
    const hash = createHash('sha1');
    hash.update(readAt(fd, 0, Math.min(FINGERPRINT_EDGE_BYTES, size)));
    if (size > FINGERPRINT_EDGE_BYTES) {
      const tailStart = Math.max(FINGERPRINT_EDGE_BYTES, size - FINGERPRINT_EDGE_BYTES);
      hash.update(readAt(fd, tailStart, size - tailStart));
    }
    return { path: absolute, size, mtimeMs: stats.mtimeMs, fingerprint: hash.digest('hex') };
  } finally {
    closeSync(fd);
  }
}

export function defaultCacheDir(): string {
  const fromEnv = process.env['LOOPSCOPE_CACHE_DIR'];
  if (fromEnv) return fromEnv;
  const xdg = process.env['XDG_CACHE_HOME'];
  return join(xdg && xdg !== '' ? xdg : join(homedir(), '.cache'), 'loopscope');
}

export function databasePathFor(identity: FileIdentity, cacheDir: string): string {
  const key = createHash('sha1').update(identity.path).digest('hex').slice(0, 16);
  const safeName = basename(identity.path)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 60);
  return join(cacheDir, `${safeName}-${key}.sqlite`);
}

export function openDatabase(dbPath: string, options: { readonly?: boolean } = {}): Database.Database {
  const db = new Database(dbPath, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('cache_size = -16000');
  db.pragma('temp_store = MEMORY');
  return db;
}

function removeDatabaseFiles(dbPath: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
}

interface StoredSource {
  id: number;
  path: string;
  size: number;
  mtime_ms: number;
  fingerprint: string;
  format: string;
  search_indexed: number;
  ingest_completed_at: string | null;
}

function isCompleteIngestOf(row: StoredSource | undefined, identity: FileIdentity): row is StoredSource {
  return (
    row !== undefined &&
    row.ingest_completed_at !== null &&
    row.path === identity.path &&
    row.size === identity.size &&
    row.mtime_ms === identity.mtimeMs &&
    row.fingerprint === identity.fingerprint
  );
}

/** A source opened with the trace and kept in its database (a sub-agent transcript). */
export interface CompanionSource {
  path: string;
  sourceId: number;
}

export interface ReusableIngest {
  sourceId: number;
  companions: CompanionSource[];
}

/**
 * The completed ingest of exactly this file (read as `format`, when one is required; with its search
 * index, when one is required) and of exactly
 * the companion files it has now, if the database holds one: a sub-agent transcript added,
 * removed or changed since means the whole trace is read again.
 */
function reusableIngest(
  db: Database.Database,
  identity: FileIdentity,
  format: string | undefined,
  searchIndex: boolean,
  companionsOf: (format: string) => FileIdentity[],
): ReusableIngest | null {
  const columns = 'id, path, size, mtime_ms, fingerprint, format, search_indexed, ingest_completed_at';
  const main = db
    .prepare<[string], StoredSource>(`SELECT ${columns} FROM sources WHERE path = ? AND parent_source_id IS NULL ORDER BY id DESC LIMIT 1`)
    .get(identity.path);
  if (!isCompleteIngestOf(main, identity)) return null;
  if (format !== undefined && main.format !== format) return null;
  if (searchIndex && main.search_indexed === 0) return null;
  const stored = db.prepare<[number], StoredSource>(`SELECT ${columns} FROM sources WHERE parent_source_id = ? ORDER BY id`).all(main.id);
  const current = companionsOf(main.format);
  if (stored.length !== current.length || !current.every((companion, index) => isCompleteIngestOf(stored[index], companion))) return null;
  return { sourceId: main.id, companions: stored.map((row) => ({ path: row.path, sourceId: row.id })) };
}

export interface PreparedDatabase {
  db: Database.Database;
  dbPath: string;
  /** Set when the database already holds a completed ingest of the unchanged file and companions. */
  reusable: ReusableIngest | null;
}

/**
 * The cache database of a file opened, when it holds a completed ingest of the unchanged file and
 * companions (see `reusableIngest`); null otherwise. Changes nothing on disk: the caller may be
 * the app's main thread, checking whether a trace opens without an ingest.
 */
export function openReusableDatabase(
  identity: FileIdentity,
  cacheDir: string,
  format: string | undefined,
  searchIndex: boolean,
  companionsOf: (format: string) => FileIdentity[],
): (PreparedDatabase & { reusable: ReusableIngest }) | null {
  const dbPath = databasePathFor(identity, cacheDir);
  // Opening a missing file would create an empty database.
  if (!existsSync(dbPath)) return null;
  try {
    const db = openDatabase(dbPath);
    try {
      const reusable = storedSchemaVersion(db) === SCHEMA_VERSION ? reusableIngest(db, identity, format, searchIndex, companionsOf) : null;
      if (reusable !== null) return { db, dbPath, reusable };
    } catch {
      // Corrupt or foreign database: not reusable.
    }
    db.close();
  } catch {
    // Not openable as SQLite at all: not reusable.
  }
  return null;
}

/**
 * Opens the cache database for a file, discarding it when it cannot be trusted: not SQLite, another
 * schema version (older or newer), an ingest that never completed, or a file that changed since.
 */
export function prepareDatabase(
  identity: FileIdentity,
  cacheDir: string,
  format: string | undefined,
  searchIndex: boolean,
  companionsOf: (format: string) => FileIdentity[],
): PreparedDatabase {
  mkdirSync(cacheDir, { recursive: true });
  const reused = openReusableDatabase(identity, cacheDir, format, searchIndex, companionsOf);
  if (reused !== null) return reused;
  // Rebuilt from the trace.
  const dbPath = databasePathFor(identity, cacheDir);
  removeDatabaseFiles(dbPath);
  const db = openDatabase(dbPath);
  createSchema(db);
  return { db, dbPath, reusable: null };
}
