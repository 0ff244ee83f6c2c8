/**
 * The store worker: the single writer of a trace database during ingest. It writes the row
 * batches the ingest worker ships, one transaction each, while the ingest worker parses the next
 * batches on the other core. It also assembles each run's timeline from the rows it writes and
 * analyzes the run as soon as it ends, so no row is read back; a run that receives rows after it
 * was analyzed is analyzed again from the database at the end. Flow control is a shared counter of
 * batches in flight, so parsing never runs ahead of writing by more than a few batches.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RunTimelineAssembler, SourceAnalyzer, timelineEventTypes, type TimelineRunRow } from '../analysis/analyzeSource';
import { createQueryIndexes } from '../store/schema';
import { openDatabase } from '../store/traceDatabase';
import {
  decodeRow,
  eventColumns,
  forEachRow,
  runColumns,
  toolCallColumns,
  TraceStore,
  type EventRow,
  type RowBatch,
  type RunRow,
  type ToolCallRow,
} from '../store/traceWriter';
import { storeRequestSchema, storeWorkerDataSchema, type StoreReply, type StoreRequest } from './workerProtocol';

const { dbPath, sourceId, analysis, flow: flowBuffer } = storeWorkerDataSchema.parse(workerData);
const flow = new Int32Array(flowBuffer);
const db = openDatabase(dbPath);
const store = new TraceStore(db);
const analyzer = new SourceAnalyzer(db, sourceId, analysis);

const typeColumn = eventColumns.indexOf('type');
const eventRunColumn = eventColumns.indexOf('run_pk');
const callRunColumn = toolCallColumns.indexOf('run_pk');
const assemblers = new Map<number, RunTimelineAssembler>();
const latestRunRows = new Map<number, TimelineRunRow>();
const analyzedRuns = new Set<number>();
/** Runs that received rows after their analysis; their assembled rows are incomplete. */
const changedAfterAnalysis = new Set<number>();

function assemblerFor(runPk: number): RunTimelineAssembler | null {
  if (analyzedRuns.has(runPk)) {
    changedAfterAnalysis.add(runPk);
    return null;
  }
  let assembler = assemblers.get(runPk);
  if (assembler === undefined) {
    assembler = new RunTimelineAssembler();
    assemblers.set(runPk, assembler);
  }
  return assembler;
}

const writeAndAnalyze = db.transaction((batch: RowBatch) => {
  store.write(batch);
  forEachRow(batch.events, eventColumns, (offset) => {
    if (!timelineEventTypes.has(batch.events[offset + typeColumn] as string)) return;
    assemblerFor(batch.events[offset + eventRunColumn] as number)?.addEvent(decodeRow<EventRow>(batch.events, offset, eventColumns));
  });
  forEachRow(batch.toolCalls, toolCallColumns, (offset) => {
    assemblerFor(batch.toolCalls[offset + callRunColumn] as number)?.addCall(decodeRow<ToolCallRow>(batch.toolCalls, offset, toolCallColumns));
  });
  for (const stream of batch.streamOutcomes) assemblerFor(stream.runPk)?.setStreamOutcome(stream.eventId, stream.outcome, stream.finishReason);
  forEachRow(batch.runs, runColumns, (offset) => {
    const run = decodeRow<RunRow>(batch.runs, offset, runColumns);
    latestRunRows.set(run.id, run);
  });
  for (const runPk of batch.analyzeRuns) {
    const assembler = assemblers.get(runPk);
    const run = latestRunRows.get(runPk);
    if (assembler === undefined || run === undefined || changedAfterAnalysis.has(runPk)) continue;
    analyzer.analyze(run, assembler);
    assemblers.delete(runPk);
    analyzedRuns.add(runPk);
  }
});

function finish(request: Extract<StoreRequest, { type: 'finish' }>): void {
  createQueryIndexes(db);
  const { counters } = request;
  db.transaction(() => {
    for (const runPk of changedAfterAnalysis) analyzer.analyzeStoredRun(runPk);
    db.prepare(
      `UPDATE sources SET bytes = ?, lines = ?, blank_lines = ?, events = ?, parse_errors = ?, ingest_completed_at = ?
       WHERE id = ?`,
    ).run(counters.bytesRead, counters.lines, counters.blankLines, counters.events, counters.parseErrors, new Date().toISOString(), sourceId);
    analyzer.markComplete();
  })();
  db.close();
}

function reply(message: StoreReply): void {
  parentPort?.postMessage(message);
}

parentPort?.on('message', (raw: unknown) => {
  try {
    const request = storeRequestSchema.parse(raw);
    if (request.type === 'batch') {
      writeAndAnalyze(request.batch);
      Atomics.sub(flow, 0, 1);
      Atomics.notify(flow, 0);
      return;
    }
    finish(request);
    reply({ type: 'done' });
  } catch (error) {
    Atomics.store(flow, 1, 1);
    Atomics.notify(flow, 0);
    reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
});
