/**
 * Loads an ingest's row batches into a trace database and analyzes each run as it completes. Runs
 * wherever the database writer is: in the store worker for a large file (beside the parsing
 * thread), or in the ingest worker itself for a small one, where a second thread would cost more
 * to start than it saves.
 *
 * Each run's timeline is assembled from the rows as they are written, so nothing is read back;
 * a run that receives rows after it was analyzed is analyzed again from the database at the end.
 * A run's logged requests are compared as they are written too (beside the parsing, not after it),
 * from the request events and usages seen being written; the rest at the end (requestAnalysis.ts).
 */
import type Database from 'better-sqlite3';
import { collectGarbage } from './collectGarbage';
import { optionsKey, RunTimelineAssembler, SourceAnalyzer, timelineEventTypes } from '../derive/analyzeSource';
import type { TimelineRunSqlRow } from '../store/runAnalysis';
import { runPksOfSource } from '../store/runs';
import { updateSourceCounts, updateSourceIdentity } from '../store/sources';
import type { IngestProgress } from '../ingest/ingestFile';
import type { AnalysisOptions } from '../../../shared/report';
import { createQueryIndexes } from '../store/schema';
import type { FileIdentity } from '../store/traceDatabase';
import { SourceRequestAnalyzer } from '../derive/requestAnalysis';
import {
  decodeEvent,
  decodeRow,
  decodeToolCall,
  eventColumns,
  runColumns,
  toolCallColumns,
  TraceStore,
  type EventSqlRow,
  type RowBatch,
  type RunSqlRow,
} from '../store/traceWriter';

const typeColumn = eventColumns.indexOf('type');
const column = (name: keyof EventSqlRow): number => eventColumns.indexOf(name);
const requestColumns = {
  id: column('id'),
  sourceId: column('source_id'),
  line: column('line'),
  step: column('step'),
  offset: column('byte_offset'),
  length: column('byte_length'),
};
const usageColumns = { input: column('input_tokens'), cached: column('cached_input_tokens'), output: column('output_tokens') };
const eventRunColumn = eventColumns.indexOf('run_pk');
const callRunColumn = toolCallColumns.indexOf('run_pk');

/**
 * How often, at most, a followed file's changed runs have their requests compared again: every
 * 5 s, or ten times as long as the last comparison took. Comparing a run's requests reads and
 * tokenizes its whole history, which for a long running run costs far more than storing a few
 * appended lines; so a live run's Requests section may lag its timeline (at most ~10 % of the
 * thread goes to it). Findings and call states are analyzed at every checkpoint; everything is
 * compared when the ingest finishes.
 */
const FOLLOWED_REQUESTS_INTERVAL_MS = 5_000;

/** A run whose analysis leaves this much garbage (its events, a working record per call) has it collected at once (collectGarbage.ts). */
const LONG_RUN_EVENTS = 100_000;

export class TraceLoader {
  private readonly store: TraceStore;
  private readonly analyzer: SourceAnalyzer;
  private readonly assemblers = new Map<number, RunTimelineAssembler>();
  private readonly latestRunRows = new Map<number, TimelineRunSqlRow>();
  private readonly analyzedRuns = new Set<number>();
  /**
   * A followed file's runs still running (append mode), kept assembled between checkpoints with
   * their call states as stored, so each append re-reads nothing of them from the database.
   */
  private readonly liveRuns = new Map<number, { assembler: RunTimelineAssembler; callStates: Map<string, string> }>();
  /** Runs that received rows after their analysis; their assembled rows are incomplete. */
  private readonly changedAfterAnalysis = new Set<number>();
  private readonly requests: SourceRequestAnalyzer;
  private readonly optionsKey: string;
  /** When the requests of the runs that changed were last compared, and how long that took (see FOLLOWED_REQUESTS_INTERVAL_MS). */
  private requestsAnalyzedAt = 0;
  private requestsTook = 0;
  readonly write: (batch: RowBatch) => void;

  /**
   * `bulk` (an ingest from the start of the file): written without a journal, indexed at the end.
   * `append` (a followed file's new lines, after its bulk load): written beside readers, with the
   * WAL and the indexes the bulk load left; the source's runs stored by then count as analyzed,
   * so one that receives rows is assembled from the database once and analyzed again at each
   * checkpoint while it runs (`liveRuns`).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly sourceId: number,
    analysis: AnalysisOptions,
    private readonly mode: 'bulk' | 'append' = 'bulk',
  ) {
    // The bulk load needs no journal: an ingest that does not complete is detected and redone from
    // the trace (sources.ingest_completed_at stays NULL), so write-ahead logging would only write
    // every page twice. WAL comes back at the end, for readers beside the writer.
    if (mode === 'bulk') {
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
    } else {
      for (const runPk of runPksOfSource(db, sourceId)) this.analyzedRuns.add(runPk);
    }
    this.store = new TraceStore(db);
    this.analyzer = new SourceAnalyzer(db, sourceId, analysis);
    this.requests = new SourceRequestAnalyzer(db, sourceId, this.analyzedRuns);
    this.optionsKey = optionsKey(analysis);
    const writeAndAnalyze = db.transaction((batch: RowBatch) => this.writeAndAnalyze(batch));
    this.write = (batch) => {
      // Once the run's frames are gone: a local still holding its assembly would keep it alive.
      if (writeAndAnalyze(batch)) collectGarbage();
    };
  }

  /**
   * Builds the query indexes, analyzes what changed late, and marks the ingest and the analysis
   * complete. A followed file's bytes read (`ingested`) are recorded as its identity.
   */
  finish(counters: IngestProgress, ingested?: FileIdentity): void {
    if (ingested !== undefined) this.recordIdentity(ingested);
    this.settle(counters, true);
    this.requests.close();
  }

  /**
   * A followed file's lines so far are stored: analyzes what changed since the last checkpoint and
   * records the counters and the identity of the bytes read (`ingested`: their raw lines can be
   * read back while the file grows), leaving the ingest incomplete (a reopen reads the file
   * again). After a bulk load it also builds the indexes and turns the WAL on, so the database can
   * be read.
   */
  checkpoint(counters: IngestProgress, ingested: FileIdentity): void {
    this.recordIdentity(ingested);
    this.settle(counters, false);
  }

  private recordIdentity(ingested: FileIdentity): void {
    updateSourceIdentity(this.db, this.sourceId, ingested);
  }

  /** Once for a bulk load (its finish, or a followed file's first checkpoint); at every checkpoint of an append loader. */
  private settle(counters: IngestProgress, complete: boolean): void {
    if (this.mode === 'bulk') createQueryIndexes(this.db);
    this.db.transaction(() => {
      const sinceRequests = performance.now() - this.requestsAnalyzedAt;
      if (complete || this.mode === 'bulk' || sinceRequests >= Math.max(FOLLOWED_REQUESTS_INTERVAL_MS, 10 * this.requestsTook)) {
        const started = performance.now();
        this.requests.analyzePending(this.optionsKey);
        this.requestsAnalyzedAt = performance.now();
        this.requestsTook = this.requestsAnalyzedAt - started;
      }
      for (const runPk of this.changedAfterAnalysis) this.analyzeChangedRun(runPk);
      this.changedAfterAnalysis.clear();
      updateSourceCounts(this.db, this.sourceId, counters, complete ? new Date().toISOString() : null);
      if (complete) this.analyzer.markComplete();
    })();
    if (this.mode === 'bulk') {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
    }
  }

  /** A run that received rows (or a new status) after its analysis: analyzed again, from its live assembly or from the database. */
  private analyzeChangedRun(runPk: number): void {
    const live = this.liveRuns.get(runPk);
    const run = live === undefined ? undefined : this.analyzer.storedRun(runPk);
    if (live === undefined || run === undefined) {
      this.analyzer.analyzeStoredRun(runPk);
      return;
    }
    this.analyzer.analyze(run, live.assembler, live.callStates);
    if (run.status !== 'running') this.liveRuns.delete(runPk);
  }

  /**
   * Append mode: the analyzed runs this batch adds rows to are assembled from the database once,
   * before the batch is written, and kept so while they run; the batch's rows then join them.
   */
  private assembleLiveRuns(batch: RowBatch): void {
    const touched = new Set<number>();
    for (const values of batch.events) touched.add(values[eventRunColumn] as number);
    for (const values of batch.toolCalls) touched.add(values[callRunColumn] as number);
    for (const stream of batch.streamOutcomes) touched.add(stream.runPk);
    for (const runPk of touched) {
      if (!this.analyzedRuns.has(runPk) || this.liveRuns.has(runPk)) continue;
      const stored = this.analyzer.assembleStoredRun(runPk);
      if (stored !== null) this.liveRuns.set(runPk, { assembler: stored.assembler, callStates: stored.callStates });
    }
  }

  private assemblerFor(runPk: number): RunTimelineAssembler | null {
    if (this.analyzedRuns.has(runPk)) {
      this.changedAfterAnalysis.add(runPk);
      this.requests.forget(runPk);
      return this.liveRuns.get(runPk)?.assembler ?? null;
    }
    let assembler = this.assemblers.get(runPk);
    if (assembler === undefined) {
      assembler = new RunTimelineAssembler();
      this.assemblers.set(runPk, assembler);
    }
    return assembler;
  }

  /** Hands a run's request events and the usages answering them to its request analysis. */
  private collectRequests(values: unknown[]): void {
    const type = values[typeColumn] as string;
    if (type !== 'model_request' && type !== 'model_response' && type !== 'stream_fragment') return;
    const runPk = values[eventRunColumn] as number;
    if (this.analyzedRuns.has(runPk)) {
      // A request or response after the run was analyzed: its requests are compared again at the end.
      this.requests.forget(runPk);
      return;
    }
    const id = values[requestColumns.id] as number;
    const at = (name: keyof typeof requestColumns) => values[requestColumns[name]] as number;
    this.requests.observe(runPk, {
      usage: {
        id,
        type,
        input_tokens: values[usageColumns.input] as number | null,
        cached_input_tokens: values[usageColumns.cached] as number | null,
        output_tokens: values[usageColumns.output] as number | null,
      },
      request:
        type === 'model_request'
          ? {
              id,
              source_id: at('sourceId'),
              line: at('line'),
              step: values[requestColumns.step] as number | null,
              byte_offset: at('offset'),
              byte_length: at('length'),
            }
          : null,
    });
  }

  /** Returns whether it analyzed a long run (LONG_RUN_EVENTS). */
  private writeAndAnalyze(batch: RowBatch): boolean {
    if (this.mode === 'append') this.assembleLiveRuns(batch);
    this.store.write(batch);
    // Calls before events: the assembler then shares each call's id with its start and result (RunTimelineAssembler).
    for (const values of batch.toolCalls) this.assemblerFor(values[callRunColumn] as number)?.addCall(decodeToolCall(values));
    for (const values of batch.events) {
      this.collectRequests(values);
      if (!timelineEventTypes.has(values[typeColumn] as string)) continue;
      this.assemblerFor(values[eventRunColumn] as number)?.addEvent(decodeEvent(values));
    }
    for (const stream of batch.streamOutcomes) this.assemblerFor(stream.runPk)?.setStreamOutcome(stream.eventId, stream.outcome, stream.finishReason);
    for (const values of batch.runs) {
      const run = decodeRow<RunSqlRow>(values, runColumns);
      this.latestRunRows.set(run.id, run);
      // Stored again with no new rows: a followed file went idle, its open runs from running to unterminated.
      if (this.analyzedRuns.has(run.id)) this.changedAfterAnalysis.add(run.id);
    }
    let analyzedLongRun = false;
    for (const runPk of batch.analyzeRuns) {
      // A run may have no analyzable event at all (only its start): it is analyzed all the same.
      const assembler = this.assemblers.get(runPk) ?? (this.analyzedRuns.has(runPk) ? undefined : new RunTimelineAssembler());
      const run = this.latestRunRows.get(runPk);
      if (assembler === undefined || run === undefined || this.changedAfterAnalysis.has(runPk)) continue;
      // Its requests first: the run's analysis stores their findings with its own.
      this.requests.runEnded(runPk);
      this.analyzer.analyze(run, assembler);
      this.assemblers.delete(runPk);
      this.analyzedRuns.add(runPk);
      analyzedLongRun ||= assembler.size >= LONG_RUN_EVENTS;
    }
    return analyzedLongRun;
  }
}
