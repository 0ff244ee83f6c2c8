/**
 * A run's logged requests analyzed one at a time, in order (docs/semantics.md §9): each against
 * the one before it — what the turn added, where the history was rewritten, whether the system
 * prompt or tools changed, compaction, input tokens — with the request findings.
 *
 * `LoggedRequestFold` is that analysis as a fold: whoever reads the requests feeds them in, from a
 * whole run read after ingest or from requests arriving during it. `LiveRequestRuns` does the
 * latter: during ingest, a run's request is analyzed as soon as its usage is final (its response
 * was written, or the next request), so runs that end only with the file (HTTP exchange logs,
 * where any conversation may still go on) are analyzed beside the parsing instead of after it.
 */
import type { RequestEventSqlRow, UsageEventSqlRow } from '../store/readModel';
import { AnsweringUsages, type LoggedRequest, type LoggedRequestReader, type ResponseUsage } from './requestHistory';
import type { RequestThread } from './requestBytes';
import type { TokenEstimator } from './tokenEstimator';
import { attributeRequestTokens, scaleAdded, type AddedTokens } from '../../../shared/requests/contextGrowth';
import { compaction, type Compaction } from '../../../shared/requests/compaction';
import { checkToolPairing, diffRequests, type PrefixChange, type RewriteKind, type ToolPairing } from '../../../shared/requests/diffRequests';
import type { NormalizedRequest } from '../../../shared/requests/normalizedRequest';
import {
  historyCompactedFinding,
  historyRewriteFinding,
  missingToolResultFindings,
  prefixChangeFinding,
  type RequestFinding,
} from '../../../shared/requests/requestFindings';
import type { TokenSource } from '../../../shared/report';

export interface RequestRecord {
  /** 0-based position among the run's requests (logged: among its `model_request` events). */
  index: number;
  eventId: number;
  line: number;
  step: number | null;
  reconstructed: boolean;
  messages: number;
  appendedMessages: number;
  /** `messageIndex`: 0-based in the history without system messages; `messageNumber`: 1-based, as logged. */
  rewrite: { messageIndex: number; messageNumber: number; kind: RewriteKind } | null;
  prefixChange: PrefixChange | null;
  compaction: Compaction | null;
  inputTokens: number | null;
  inputTokensSource: TokenSource | null;
  cachedInputTokens: number | null;
  outputTokens: number | null;
  added: AddedTokens[];
  findings: RequestFinding[];
}

const noUsage: ResponseUsage = { inputTokens: null, cachedInputTokens: null, outputTokens: null };

/** Recorded input tokens, else the estimate — unless there is nothing to estimate (a request rebuilt from no recorded message). */
export function tokensOf(usage: ResponseUsage, estimate: number): { inputTokens: number | null; inputTokensSource: TokenSource | null } {
  if (usage.inputTokens !== null) return { inputTokens: usage.inputTokens, inputTokensSource: 'recorded' };
  return estimate === 0 ? { inputTokens: null, inputTokensSource: null } : { inputTokens: estimate, inputTokensSource: 'estimated' };
}

/** Pairing problems not already reported for an earlier request of the run (a call left unanswered stays so in every later history). */
function newPairingProblems(pairing: ToolPairing, reported: Set<string>): ToolPairing {
  const fresh = (key: string): boolean => {
    if (reported.has(key)) return false;
    reported.add(key);
    return true;
  };
  return {
    missingToolResults: pairing.missingToolResults.filter((call) => fresh(`call:${call.callId}`)),
    orphanToolResults: pairing.orphanToolResults.filter((result) => fresh(`result:${result.callId ?? `#${result.messageIndex}`}`)),
  };
}

/** The analysis of one run's logged requests, fed them in order; it keeps what the next request needs, not the records. */
export class LoggedRequestFold {
  private readonly reported = new Set<string>();
  /** The last request that could be compared (one that cannot is skipped), and its position among the run's requests. */
  private previous: NormalizedRequest | null = null;
  private previousAt = -1;
  private previousInput: number | null = null;
  /** The input tokens of the last record (recorded or estimated), where a compaction starts from. */
  private lastRecordInput: number | null = null;
  private index = -1;

  constructor(private readonly estimator: TokenEstimator) {}

  /** Where the request the next one is compared with sits among the run's requests, when it was let go of (`letGoOfPrevious`); else null. */
  get previousToRead(): number | null {
    return this.previous === null && this.previousAt >= 0 ? this.previousAt : null;
  }

  /** Drops the request the next one is compared with (memory); it must be given back (`restorePrevious`) before the next. */
  letGoOfPrevious(): void {
    this.previous = null;
  }

  restorePrevious(request: NormalizedRequest): void {
    this.previous = request;
  }

  /** The run's next request and the usage of the response that answered it: its record, or null when it cannot be compared. */
  add(logged: LoggedRequest, usage: ResponseUsage = noUsage): RequestRecord | null {
    this.index += 1;
    if ('problem' in logged.request) return null;
    if (this.previousAt >= 0 && this.previous === null) throw new Error('the previous request was let go of and not restored');
    const request = logged.request;
    const previous = this.previous;
    // Tokenized only where the estimate is what is shown; otherwise sizes scaled to the usage.
    const counts = usage.inputTokens === null ? this.estimator.request(request) : this.estimator.sizes(request);
    const estimate = counts.system + counts.tools + counts.messages.reduce((sum, tokens) => sum + tokens, 0);
    const tokens = tokensOf(usage, estimate);
    const number = this.index + 1;
    let appended: number[];
    let rewrite: RequestRecord['rewrite'] = null;
    let prefixChange: PrefixChange | null = null;
    let compacted: Compaction | null = null;
    const findings: (RequestFinding | null)[] = [];
    if (previous === null) {
      appended = request.messages.map((_, i) => i);
      findings.push(...missingToolResultFindings(number, newPairingProblems(checkToolPairing(request.messages), this.reported)));
    } else {
      const diff = diffRequests(previous, request);
      appended = diff.alignment.entries.flatMap((entry) =>
        entry.nextIndex !== null && (entry.status === 'appended' || entry.status === 'modified') ? [entry.nextIndex] : [],
      );
      if (diff.history.verdict === 'rewritten') {
        rewrite = { messageIndex: diff.history.firstDifference, messageNumber: diff.history.messageNumber, kind: diff.history.kind };
        if (diff.history.kind === 'compacted') {
          compacted = compaction('diff', null, this.lastRecordInput, tokens.inputTokens, diff.history.counts.removed + diff.history.counts.modified);
          findings.push(historyCompactedFinding(number, compacted, diff.history.messageNumber));
        }
      }
      prefixChange = diff.prefix;
      findings.push(
        historyRewriteFinding(number, diff.history),
        prefixChangeFinding(number, diff.prefix),
        ...missingToolResultFindings(number, newPairingProblems(diff.toolPairing, this.reported)),
      );
    }
    const attribution = attributeRequestTokens(request, appended, counts, usage.inputTokens);
    const growth = rewrite === null && usage.inputTokens !== null && this.previousInput !== null ? usage.inputTokens - this.previousInput : null;
    const record: RequestRecord = {
      index: this.index,
      eventId: logged.eventId,
      line: logged.line,
      step: logged.step,
      reconstructed: false,
      messages: request.messages.length,
      appendedMessages: appended.length,
      rewrite,
      prefixChange,
      compaction: compacted,
      ...tokens,
      cachedInputTokens: usage.cachedInputTokens,
      outputTokens: usage.outputTokens,
      added: previous === null ? [] : growth === null ? attribution.added : scaleAdded(attribution.added, growth),
      findings: findings.filter((finding): finding is RequestFinding => finding !== null),
    };
    this.previous = request;
    this.previousAt = this.index;
    this.previousInput = usage.inputTokens;
    this.lastRecordInput = record.inputTokens;
    return record;
  }
}

/** Analyzes a whole run's logged requests, one at a time: these events, in order, and the usage of the response to each. */
export function* analyzeLoggedRequests(
  events: readonly RequestEventSqlRow[],
  usages: ReadonlyMap<number, ResponseUsage>,
  reader: LoggedRequestReader,
  estimator: TokenEstimator,
): Generator<RequestRecord> {
  const fold = new LoggedRequestFold(estimator);
  for (const logged of reader.requests(events)) {
    const record = fold.add(logged, usages.get(logged.eventId));
    if (record !== null) yield record;
  }
}

/**
 * Bytes of request lines the live runs may hold between two of their requests (each its last
 * request, which the next one repeats and is compared with; read into a buffer of up to twice its
 * length, see LoggedRequestReader). Past it the runs that went on least
 * recently let go of theirs, and read it again from the file if they go on: many conversations
 * open at once cost a re-read, not memory.
 */
const HELD_LINE_BYTES = 8 * 1024 * 1024;

interface LiveRun {
  events: RequestEventSqlRow[];
  usages: AnsweringUsages;
  fold: LoggedRequestFold;
  /** How many of `events` are analyzed, and whether a record of them was written. */
  folded: number;
  written: boolean;
  /** The run's place in the reader and its last request read; null when let go of. */
  thread: RequestThread | null;
  previous: LoggedRequest | null;
  /** Bytes of the line its last request was read from, while it holds it. */
  held: number;
}

/** A run's request, response or stream fragment as its row is written; a request with where its line is. */
export interface ObservedRequestRow {
  usage: UsageEventSqlRow;
  request: RequestEventSqlRow | null;
}

/** Where the records of live runs go as they are made: `first` for a run's first (its earlier stored requests, if any, are replaced). */
export type RequestRecordSink = (runPk: number, record: RequestRecord, first: boolean) => void;

/**
 * The logged requests of a source's runs analyzed during its ingest, each as soon as its usage is
 * final, its record handed to the sink at once (a run's records are never all held). Left to the analysis after ingest (`deferred`): a run with a streamed response (a stream's
 * usage is known only once it closes, which its events do not say in order), and one whose request
 * read again no longer reads as it did (the file changed under the ingest).
 */
export class LiveRequestRuns {
  private readonly runs = new Map<number, LiveRun | 'deferred'>();
  /** The runs holding their last request's line, least recently gone on first. */
  private readonly holding = new Map<number, LiveRun>();
  private heldBytes = 0;

  constructor(
    private readonly reader: LoggedRequestReader,
    private readonly estimator: TokenEstimator,
    private readonly sink: RequestRecordSink,
    private readonly maxHeldBytes = HELD_LINE_BYTES,
  ) {}

  observe(runPk: number, row: ObservedRequestRow): void {
    let run = this.runs.get(runPk);
    if (run === 'deferred') return;
    if (row.usage.type === 'stream_fragment') {
      this.defer(runPk);
      return;
    }
    if (run === undefined) {
      // A run's requests start with its first request: a response before it answers none.
      if (row.request === null) return;
      run = {
        events: [],
        usages: new AnsweringUsages(),
        fold: new LoggedRequestFold(this.estimator),
        folded: 0,
        written: false,
        thread: null,
        previous: null,
        held: 0,
      };
      this.runs.set(runPk, run);
    }
    if (row.request !== null) run.events.push(row.request);
    run.usages.add(row.usage);
    this.advance(runPk, run, run.usages.awaitingResponse ? run.events.length - 1 : run.events.length);
  }

  /**
   * The run ended: true when the records of all its requests went to the sink, false when they are
   * left to the analysis after ingest (deferred, or no request seen).
   */
  end(runPk: number): boolean {
    const run = this.runs.get(runPk);
    if (run === undefined || run === 'deferred') return false;
    this.advance(runPk, run, run.events.length);
    const ended = this.runs.get(runPk);
    this.forget(runPk);
    return ended === run;
  }

  /** The run is analyzed after ingest instead, or not at all (it is forgotten after its end). */
  forget(runPk: number): void {
    const run = this.runs.get(runPk);
    if (run !== undefined && run !== 'deferred') this.letGo(runPk, run);
    this.runs.delete(runPk);
  }

  private defer(runPk: number): void {
    this.forget(runPk);
    this.runs.set(runPk, 'deferred');
  }

  /** Analyzes the run's requests up to (not including) `events[until]`. */
  private advance(runPk: number, run: LiveRun, until: number): void {
    if (run.folded >= until) return;
    if (run.thread === null && !this.restore(run)) {
      this.defer(runPk);
      return;
    }
    for (; run.folded < until; run.folded++) {
      const event = run.events[run.folded]!;
      const logged = this.reader.read(event, run.previous, run.thread!);
      const record = run.fold.add(logged, run.usages.byRequest.get(event.id));
      if (record !== null) {
        this.sink(runPk, record, !run.written);
        run.written = true;
      }
      run.previous = logged;
      this.heldBytes += event.byte_length - run.held;
      run.held = event.byte_length;
    }
    this.holding.delete(runPk);
    this.holding.set(runPk, run);
    for (const [other, held] of this.holding) {
      if (this.heldBytes <= this.maxHeldBytes || other === runPk) break;
      this.letGo(other, held);
    }
  }

  /**
   * A run that let go of its last request reads it again (and the one its next is compared with,
   * when that is another); false when that one no longer reads as a request.
   */
  private restore(run: LiveRun): boolean {
    const thread: RequestThread = { last: null };
    run.thread = thread;
    if (run.folded === 0) return true;
    run.previous = this.reader.readAt(run.events, run.folded - 1, thread);
    const at = run.fold.previousToRead;
    if (at === null) return true;
    const previous = at === run.folded - 1 ? run.previous : this.reader.readAt(run.events, at, thread);
    if ('problem' in previous.request) return false;
    run.fold.restorePrevious(previous.request);
    return true;
  }

  private letGo(runPk: number, run: LiveRun): void {
    this.holding.delete(runPk);
    this.heldBytes -= run.held;
    run.held = 0;
    run.thread = null;
    run.previous = null;
    run.fold.letGoOfPrevious();
  }
}
