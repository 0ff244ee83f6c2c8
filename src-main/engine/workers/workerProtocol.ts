/** Messages between the engine and its workers, validated on arrival. */
import { MessagePort } from 'node:worker_threads';
import { z } from 'zod';

export const ingestRequestSchema = z.object({
  path: z.string(),
  cacheDir: z.string(),
  maxLineBytes: z.number().int().positive(),
  /** Files at least this large are written by a store worker beside the parsing thread. */
  storeWorkerMinBytes: z.number().int().nonnegative(),
  /** A format name that overrides detection (`--format`). */
  format: z.string().optional(),
  analysis: z.object({ window: z.number().int().min(1), threshold: z.number().int().min(1) }),
  /** Whether to post each run as it is stored (`runs` messages), for a view that fills in during a long ingest. */
  reportRuns: z.boolean(),
  /** Whether to build the full-text search index (the app searches; `loopscope analyze` does not). */
  searchIndex: z.boolean(),
  /**
   * Follow the file after reading it: lines appended later are ingested as they come, and a run
   * without a terminal event is `running` until the file has been idle for `idleMs`.
   */
  follow: z.object({ idleMs: z.number().int().positive() }).nullable(),
});
export type IngestRequest = z.infer<typeof ingestRequestSchema>;

/** A file as read: where, how many bytes, when it was last written, and a fingerprint of its content. */
const fileIdentitySchema = z.object({ path: z.string(), size: z.number(), mtimeMs: z.number(), fingerprint: z.string() });

const progressSchema = z.object({
  bytesRead: z.number(),
  totalBytes: z.number(),
  lines: z.number(),
  blankLines: z.number(),
  events: z.number(),
  unknownEvents: z.number(),
  parseErrors: z.number(),
});

/**
 * A run's row as the ingest stored it (runs.*): what a runs table shows before the database can be
 * read. A run is posted again, with the same id, whenever it is stored again.
 */
export const storedRunSchema = z.object({
  id: z.number().int(),
  run_id: z.string(),
  status: z.string(),
  status_raw: z.string(),
  first_line: z.number().int(),
  last_line: z.number().int(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  steps: z.number().int(),
  tool_calls: z.number().int(),
  tool_results: z.number().int(),
  input_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
});
export type StoredRun = z.infer<typeof storedRunSchema>;

/** The source (file) a batch of stored runs belongs to. */
export const storedRunsSchema = z.object({
  source: z.object({ sourceId: z.number().int(), path: z.string(), format: z.string() }),
  runs: z.array(storedRunSchema),
});
export type StoredRuns = z.infer<typeof storedRunsSchema>;

/**
 * Flow control between the ingest and a store worker, in a SharedArrayBuffer: the batches in
 * flight (the ingest waits while there are too many; the store counts each one down as it is
 * written), and a flag the store raises when it has failed.
 */
export const FLOW_IN_FLIGHT = 0;
export const FLOW_FAILED = 1;
export const FLOW_CELLS = 2;

/**
 * The store worker's start-up data. The ingest worker asks for a store worker and the engine
 * starts it: the store must outlive the ingest, which ends once it has shipped the last batch.
 */
export const storeWorkerDataSchema = z.object({
  dbPath: z.string(),
  sourceId: z.number().int(),
  analysis: ingestRequestSchema.shape.analysis,
  /** The flow-control cells (FLOW_*). */
  flow: z.instanceof(SharedArrayBuffer),
  /** Where the ingest worker's batches come from (storeRequestSchema), and the reply goes back to. */
  port: z.instanceof(MessagePort),
});
export type StoreWorkerData = z.infer<typeof storeWorkerDataSchema>;

/**
 * From the engine to the ingest worker: end (the trace was closed). The read stops before its next
 * chunk, following stops at once, the databases are closed, and the thread ends on its own (see
 * endWorker.ts); nothing is answered.
 */
export const ingestStopSchema = z.object({ type: z.literal('stop') });
export type IngestStop = z.infer<typeof ingestStopSchema>;

/** From the ingest worker to the engine. */
export const ingestWorkerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), progress: progressSchema }),
  z.object({ type: z.literal('runs'), ...storedRunsSchema.shape }),
  /** A source large enough to be written beside the parse: the engine starts its store worker (the port is transferred). */
  z.object({ type: z.literal('store'), store: storeWorkerDataSchema }),
  /**
   * The trace is ingested, or (a store worker's source) shipped: the engine resolves the open once
   * every store worker it started is done. The ingest worker then ends, unless it follows the file.
   */
  z.object({
    type: z.literal('done'),
    dbPath: z.string(),
    sourceId: z.number().int(),
    /** Files opened with the trace (sub-agent transcripts), each a source of the same database. */
    companions: z.array(z.object({ path: z.string(), sourceId: z.number().int() })),
    reused: z.boolean(),
    /**
     * Whether the file's runs without a terminal event are unterminated (true for a file read once),
     * not running. A file not idle is followed by the ingest worker, which lives on for it.
     */
    idle: z.boolean(),
    /** The trace file as it was read: an idle file that is followed is watched (by the engine) for a change from this. */
    ingested: fileIdentitySchema,
  }),
  /** A followed file's new lines are stored and analyzed; `idle`: it has not grown for the idle time. */
  z.object({ type: z.literal('followed'), progress: progressSchema, idle: z.boolean() }),
  /**
   * A followed file was truncated, replaced (log rotation) or, after a reused ingest, grew: what
   * is stored no longer describes it, and it must be read again from the start. The worker has ended.
   */
  z.object({ type: z.literal('replaced'), reason: z.string() }),
  /** Following ended without the file being replaced (it was deleted, or could not be read); what was read stays. The worker has ended. */
  z.object({ type: z.literal('stopped'), reason: z.string() }),
  /** `code` is a TraceFileError code, or `internal` for a bug. */
  z.object({ type: z.literal('failed'), code: z.string(), message: z.string() }),
]);
export type IngestWorkerMessage = z.infer<typeof ingestWorkerMessageSchema>;

/** Row lists are checked for shape only: our own RowBatcher encoded them, and walking each value would cost more than writing it. */
const rowsSchema = z.custom<unknown[][]>((value) => Array.isArray(value), 'expected an array of rows');

/** From the ingest worker to the store worker. */
export const storeRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('batch'),
    batch: z.object({
      events: rowsSchema,
      toolCalls: rowsSchema,
      parseErrors: rowsSchema,
      absorbedLines: rowsSchema,
      streamOutcomes: z.array(
        z.object({ eventId: z.number(), runPk: z.number(), outcome: z.string(), finishReason: z.string().nullable(), toolCallCount: z.number() }),
      ),
      runs: rowsSchema,
      steps: rowsSchema,
      spans: rowsSchema,
      secrets: rowsSchema,
      searchTexts: rowsSchema,
      analyzeRuns: z.array(z.number().int()),
    }),
  }),
  /** The last batch is shipped: `complete` finishes the ingest; otherwise the file is followed and this is its first checkpoint. */
  z.object({
    type: z.literal('finish'),
    counters: progressSchema,
    complete: z.boolean(),
    ingested: fileIdentitySchema,
  }),
  /**
   * The trace was closed mid-ingest: the source is left unfinished (its cache is not reused), the
   * database is closed and the thread ends (see endWorker.ts); nothing is answered.
   */
  z.object({ type: z.literal('abandon') }),
]);
export type StoreRequest = z.infer<typeof storeRequestSchema>;

/** From the store worker to the ingest worker (which may have ended) and to the engine, which owns the store worker. */
export const storeReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('done') }),
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type StoreReply = z.infer<typeof storeReplySchema>;
