/**
 * The one API the renderer talks to, whatever carries it: Electron IPC (the desktop app) or HTTP
 * (`loopscope serve`). Every method is a request and a response, both zod schemas, validated on
 * both sides of the transport; `apiMethods` is the single list both transports are built from.
 *
 * Lists that can be long (runs, calls, findings, parse errors, a run's events) are paged: the
 * caller asks for `offset`/`limit` and gets the `total`, so a view fetches the rows around its
 * viewport, never a whole table. Heavy payloads (an event's original record) are fetched only
 * when one event is selected.
 */
import { z } from 'zod';
import { compareReportSchema } from './compare/compareRuns';
import {
  libraryAggregatesSchema,
  libraryFilterSchema,
  libraryRunSchema,
  librarySearchHitSchema,
  librarySignatureSchema,
  librarySortSchema,
  libraryStatusSchema,
} from './library/libraryApi';
import { runStatusSchema } from './trace/runStatus';
import { compactionEvidenceSchema, findingKindSchema, parseErrorSchema, rewriteKindSchema, severitySchema, tokenSourceSchema } from './report';

/** IPC channel names, shared so that main and preload cannot drift apart. */
export const ipcChannels = {
  /** Every API call: `{method, request}` → response. */
  api: 'loopscope:api',
} as const;

/** Where the renderer's API calls go, over IPC or HTTP: `{method, request}`. */
export const apiCallSchema = z.object({ method: z.string().min(1).max(64), request: z.unknown() });

const traceId = z.string().min(1).max(200);
const page = { offset: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(2000).default(200) };
/** The spans a run's event list shows collapsed, by their begin event's id (shared/trace/spanTree.ts). */
const collapsedSpans = z.array(z.number().int()).max(1000).default([]);
const severityCounts = z.object({ error: z.number().int(), warning: z.number().int(), info: z.number().int() });

export const appInfoSchema = z.object({
  version: z.string(),
  /**
   * `electron`: the desktop app (native dialogs, recent files); `browser`: `loopscope serve`;
   * `report`: an HTML report (`loopscope export --html`), read-only, its answers recorded in the page.
   */
  shell: z.enum(['electron', 'browser', 'report']),
  /** Whether the renderer may ask to open a file by path (drag and drop, recent files): Electron only. */
  canOpenPaths: z.boolean(),
  /** An HTML report's facts: when it was exported, whether its credentials are masked, the run it is for (null: the whole trace). */
  report: z.object({ exportedAt: z.string(), redacted: z.boolean(), runId: z.string().nullable() }).optional(),
});

/**
 * Something the app wants the user to know that no view shows: a file a launch or the menu could
 * not open, a reload that failed. Shown in the page until dismissed, never in a modal dialog
 * (a modal at start-up keeps the page from loading until someone clicks it).
 */
export const noticeSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  /** One problem per line, each naming its file and reason. */
  lines: z.array(z.string()),
  /** When it was raised (ISO 8601). */
  at: z.string(),
});
export type Notice = z.infer<typeof noticeSchema>;

export const ingestStateSchema = z.enum(['ingesting', 'ready', 'failed']);

/**
 * A trace file followed while it is written: `following` (runs without a terminal event are
 * running), `idle` (it has not grown for `idleAfterMs`: they are unterminated, their calls
 * dangling, until it grows again), `stopped` (following ended — the file was deleted; `notice`
 * says why).
 */
export const followStateSchema = z.object({
  state: z.enum(['following', 'idle', 'stopped']),
  idleAfterMs: z.number().int(),
  /** Goes up each time appended lines are stored: a view reloads what it shows. */
  revision: z.number().int(),
  /** When the file last grew (ISO 8601), null when it has not since it was opened. */
  grewAt: z.string().nullable(),
});

export const traceSummarySchema = z.object({
  traceId,
  path: z.string(),
  /** The file name, for titles and tabs. */
  name: z.string(),
  format: z.string().nullable(),
  formatReason: z.string().nullable(),
  state: ingestStateSchema,
  /** Ingest progress: bytes read of the file's size, events and parse errors so far. */
  progress: z.object({ bytesRead: z.number(), totalBytes: z.number(), events: z.number().int(), parseErrors: z.number().int() }),
  /** Why the trace could not be opened, when `state` is `failed`: names the file and the reason. */
  error: z.string().nullable(),
  /** Set when an ingest of the unchanged file was reused. */
  reused: z.boolean(),
  /** Files opened with it (a Claude Code session's sub-agent transcripts). */
  companions: z.array(z.string()),
  /** Set while the file is followed (the app follows every file it opens), once it is ready. */
  follow: followStateSchema.nullable(),
  /** Something the user should know about how the file was read, e.g. that it was truncated and read again from the start. */
  notice: z.string().nullable(),
});
export type TraceSummary = z.infer<typeof traceSummarySchema>;

export const runSortSchema = z.enum(['first_line', 'status', 'steps', 'tool_calls', 'tokens', 'duration', 'errors']);

/**
 * What a run or a trace cost (docs/semantics.md §19, shared/cost/runCost.ts): the sum over the
 * responses with a cost (null when none has one) and how many responses used tokens that nothing
 * priced, which the sum leaves out — an unpriced response is never counted as free.
 */
export const costSchema = z.object({ usd: z.number().nullable(), unpricedResponses: z.number().int() });
export type Cost = z.infer<typeof costSchema>;

/** One response's cost (shared/cost/runCost.ts `responseCost`): its figure and where it came from, or why it has none. */
export const responseCostSchema = z.union([
  z.object({ usd: z.number(), source: z.enum(['recorded', 'price table', 'user prices']) }),
  z.object({ unpriced: z.string() }),
]);

export const runRowSchema = z.object({
  /** The run's key inside its trace (runs.id). */
  runPk: z.number().int(),
  runId: z.string(),
  file: z.string(),
  format: z.string(),
  status: runStatusSchema,
  /** The status as the trace wrote it (shown on hover). */
  statusRaw: z.string(),
  steps: z.number().int(),
  toolCalls: z.number().int(),
  toolResults: z.number().int(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  /** Its own responses' cost; its sub-agents' is in `run`'s `costWithSubAgents`. */
  cost: costSchema,
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  firstLine: z.number().int(),
  lastLine: z.number().int(),
  findings: severityCounts,
  /** The finding kinds present in the run, for filtering. */
  findingKinds: z.array(findingKindSchema),
  parent: z
    .object({
      runPk: z.number().int(),
      runId: z.string(),
      callId: z.string().nullable(),
      /** The call that started this run: its tool, the event that issued it and its step (nulls without a call). */
      callName: z.string().nullable(),
      callEventId: z.number().int().nullable(),
      callStep: z.number().int().nullable(),
      /** What the call asked of this sub-agent: its description and agent type, when written. */
      label: z.string().nullable(),
    })
    .nullable(),
});
export type RunRow = z.infer<typeof runRowSchema>;

/**
 * A sub-agent a tool call of the run started (a Claude Code Task): the child run summed up, or —
 * when the result names a run that is not in the trace — the file that would hold it and where it
 * was looked for.
 */
export const subAgentCallSchema = z.object({
  callId: z.string(),
  /** The result that names the child run. */
  resultEventId: z.number().int(),
  childRunId: z.string(),
  label: z.string().nullable(),
  child: z
    .object({
      runPk: z.number().int(),
      status: runStatusSchema,
      steps: z.number().int(),
      toolCalls: z.number().int(),
      durationMs: z.number().nullable(),
      findings: severityCounts,
      /** Its cost with that of the sub-agents it started in turn, rolled up. */
      cost: costSchema,
      /** Its last final answer (as the timeline sums it up), null when it gave none. */
      answer: z.string().nullable(),
    })
    .nullable(),
  missing: z.object({ file: z.string().nullable(), lookedIn: z.array(z.string()) }).nullable(),
});
export type SubAgentCall = z.infer<typeof subAgentCallSchema>;

/** One canonical event, as listed in a run (its payload is fetched with `event`). */
export const eventRowSchema = z.object({
  eventId: z.number().int(),
  sourceId: z.number().int(),
  line: z.number().int(),
  type: z.string(),
  typeRaw: z.string(),
  step: z.number().int().nullable(),
  ts: z.string().nullable(),
  callId: z.string().nullable(),
  name: z.string().nullable(),
  outcome: z.string().nullable(),
  finishReason: z.string().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  /** A response's cost (null on other events, and on a response that records no usage). */
  cost: responseCostSchema.nullable(),
  latencyMs: z.number().nullable(),
  resultOk: z.boolean().nullable(),
  errorCode: z.string().nullable(),
  summary: z.string().nullable(),
  /** Which timeline lane it belongs to. */
  lane: z.enum(['input', 'model', 'call', 'result', 'other']),
  /** How many spans it is inside (shared/trace/spanTree.ts): the timeline's indentation; 0 in runs without spans. */
  spanDepth: z.number().int(),
  /** Of a span's begin, its header row: the span, and how many rows collapsing it hides (`events`, in the list asked for). */
  span: z
    .object({ name: z.string().nullable(), type: z.string().nullable(), events: z.number().int(), durationMs: z.number().nullable(), collapsed: z.boolean() })
    .nullable(),
});
export type EventRow = z.infer<typeof eventRowSchema>;

/** An event's content as its adapter read it (src-main/api/eventContent.ts): what the inspector's Output and Arguments views show. */
export const eventContentSchema = z.object({
  /** A tool result's output and error, as the format wrote them (decoded for reading by shared/toolOutput.ts). */
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  /** The arguments of each call the event issued or started, by call id. */
  arguments: z.array(z.object({ callId: z.string(), name: z.string(), value: z.unknown().optional() })),
  /** What a prompt, a task or a response says in words. */
  text: z.string().nullable(),
});
export type EventContent = z.infer<typeof eventContentSchema>;

export const callStateSchema = z.enum(['ok', 'error', 'dangling', 'unexecuted', 'pending', 'not_issued']);

export const callRowSchema = z.object({
  runPk: z.number().int(),
  runId: z.string(),
  /** The event that issued the call (a model response or the stream fragment that closed it). */
  eventId: z.number().int(),
  callIndex: z.number().int(),
  callId: z.string(),
  name: z.string(),
  step: z.number().int().nullable(),
  line: z.number().int(),
  argsSummary: z.string().nullable(),
  argsError: z.string().nullable(),
  state: callStateSchema.nullable(),
  /** The result (or not-executed event) that answered it. */
  answerEventId: z.number().int().nullable(),
  errorCode: z.string().nullable(),
  /** Of a failed result: the line of its error output that says why (shared/trace/errorLine.ts). */
  errorLine: z.string().nullable(),
  latencyMs: z.number().nullable(),
});
export type CallRow = z.infer<typeof callRowSchema>;

/** The orders of the Calls list: log order, or by a column. */
export const callSortSchema = z.enum(['position', 'step', 'tool', 'state', 'latency']);
export type CallSort = z.infer<typeof callSortSchema>;

/** One tool's latency distribution (shared/latencyStats.ts). */
export const toolLatencySchema = z.object({
  name: z.string(),
  /** Its calls, with a recorded latency or not. */
  calls: z.number().int(),
  /** Its calls with a recorded latency: the percentiles are over these. */
  timed: z.number().int(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  max: z.number().nullable(),
});
export type ToolLatency = z.infer<typeof toolLatencySchema>;

export const findingRowSchema = z.object({
  findingId: z.number().int(),
  /** Null for a finding on a line that belongs to no run (a secret on a line that is no event). */
  runPk: z.number().int().nullable(),
  runId: z.string().nullable(),
  kind: findingKindSchema,
  severity: severitySchema,
  step: z.number().int().nullable(),
  callId: z.string().nullable(),
  line: z.number().int().nullable(),
  /** The event the finding is anchored to (found by its line in the run), when there is one. */
  eventId: z.number().int().nullable(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).nullable(),
});
export type FindingRow = z.infer<typeof findingRowSchema>;

/** A parse error as the report has it (shared/report.ts), with the file it is in. */
export const parseErrorRowSchema = parseErrorSchema.extend({ sourceId: z.number().int(), file: z.string() });
export type ParseErrorRow = z.infer<typeof parseErrorRowSchema>;

/** A record of the file as written: text (invalid UTF-8 replaced), cut at `maxBytes` when longer. */
export const rawRecordSchema = z.object({
  file: z.string(),
  line: z.number().int(),
  offset: z.number().int(),
  length: z.number().int(),
  text: z.string(),
  truncated: z.boolean(),
  /** Set when the file changed since it was ingested, so its bytes no longer match. */
  stale: z.boolean(),
});
export type RawRecord = z.infer<typeof rawRecordSchema>;

export const searchHitSchema = z.object({
  eventId: z.number().int(),
  runPk: z.number().int(),
  runId: z.string(),
  line: z.number().int(),
  type: z.string(),
  step: z.number().int().nullable(),
  /** The tool the event concerns: a call's or result's name, or the names of the calls a response issued. */
  name: z.string().nullable(),
  /** Text around the match; `matches` are [start, end) character ranges in it to highlight (as text, never HTML). */
  snippet: z.string(),
  matches: z.array(z.tuple([z.number().int(), z.number().int()])),
});
export type SearchHit = z.infer<typeof searchHitSchema>;

export const budgetUseSchema = z.object({
  /** `tool_calls`, `turns`, `output_tokens`, `cost_usd`, … */
  name: z.string(),
  used: z.number(),
  limit: z.number(),
  exceeded: z.boolean(),
});

const messageSpan = z.object({ first: z.number().int(), last: z.number().int() }).nullable();

/** Request n against the one before it in its run (or any two the user picks): see shared/requests. */
export const requestDiffSchema = z.object({
  previousEventId: z.number().int().nullable(),
  eventId: z.number().int(),
  /**
   * The format logs no requests: both sides were rebuilt from the messages the model had seen
   * (the run's task, each response, each tool result), and `eventId` is the response it was sent for.
   */
  reconstructed: z.boolean(),
  previousMessages: z.number().int(),
  messages: z.number().int(),
  /**
   * Each message's number as a user counts it (1-based, every message as logged, system included),
   * by its index on each side: the indices below are into the history without system messages.
   */
  messageNumbers: z.object({ previous: z.array(z.number().int()), next: z.array(z.number().int()) }),
  history: z.discriminatedUnion('verdict', [
    z.object({ verdict: z.literal('extends'), appended: z.array(z.number().int()) }),
    z.object({
      verdict: z.literal('rewritten'),
      /** 0-based index of the first message where the histories differ: provider prompt caching stops there. */
      firstDifference: z.number().int(),
      /** The same message as a user counts it: 1-based, every message as logged (system included). */
      messageNumber: z.number().int(),
      kind: rewriteKindSchema,
      counts: z.object({ modified: z.number().int(), removed: z.number().int(), moved: z.number().int(), appended: z.number().int() }),
    }),
  ]),
  /** Consecutive messages of one status, for collapsing ("messages 1–14 unchanged"). */
  runs: z.array(
    z.object({
      status: z.enum(['unchanged', 'appended', 'removed', 'modified', 'moved']),
      previous: messageSpan,
      next: messageSpan,
      /** Estimated tokens of the span's messages (the next side, or the previous for removed ones). */
      tokens: z.number().int(),
    }),
  ),
  /**
   * Every message that is not unchanged, with its text on each side. A new, removed or moved
   * message's text is cut at 64 KiB; a long modified one comes as its changed lines with context
   * (src-main/api/changedText.ts), and `excerpt` says what was left out.
   */
  changes: z.array(
    z.object({
      status: z.enum(['appended', 'removed', 'modified', 'moved']),
      previousIndex: z.number().int().nullable(),
      nextIndex: z.number().int().nullable(),
      role: z.string(),
      previousText: z.string().nullable(),
      nextText: z.string().nullable(),
      excerpt: z.string().nullable(),
    }),
  ),
  system: z.object({ changed: z.boolean(), previous: z.string().nullable(), next: z.string().nullable() }),
  tools: z.object({
    added: z.array(z.string()),
    removed: z.array(z.string()),
    /**
     * Tools in both whose description or schema differs: which, and both definitions as indented
     * JSON with sorted keys (for a JSON diff).
     */
    changed: z.array(z.object({ name: z.string(), description: z.boolean(), parameters: z.boolean(), previousJson: z.string(), nextJson: z.string() })),
    /** The tools both define are sent in another order. */
    reordered: z.boolean(),
  }),
  /**
   * The history was compacted between the two requests (docs/semantics.md §9): the trace's marker
   * for a reconstructed request, or many messages replaced by fewer in a logged one; null otherwise.
   */
  compaction: z.object({ evidence: compactionEvidenceSchema, marker: z.object({ typeRaw: z.string(), line: z.number().int() }).nullable() }).nullable(),
  params: z.array(z.object({ key: z.string(), previous: z.unknown(), next: z.unknown() })),
  missingToolResults: z.array(z.object({ callId: z.string(), name: z.string(), messageIndex: z.number().int(), messageNumber: z.number().int() })),
  orphanToolResults: z.array(z.object({ callId: z.string().nullable(), messageIndex: z.number().int(), messageNumber: z.number().int() })),
  /** The request findings between these two requests, as the analysis reports them. */
  findings: z.array(z.object({ kind: z.string(), severity: severitySchema, message: z.string() })),
});
export type RequestDiffResponse = z.infer<typeof requestDiffSchema>;

/** One model request of a run and what it added (the context-growth chart and table). */
export const requestRowSchema = z.object({
  index: z.number().int(),
  /** The `model_request` event; for a reconstructed request, the response it was sent for. */
  eventId: z.number().int(),
  line: z.number().int(),
  step: z.number().int().nullable(),
  reconstructed: z.boolean(),
  messages: z.number().int(),
  appendedMessages: z.number().int(),
  rewrite: z.object({ messageIndex: z.number().int(), messageNumber: z.number().int(), kind: rewriteKindSchema }).nullable(),
  /** The system prompt or tool definitions changed since the previous request. */
  prefixChange: z
    .object({
      system: z.boolean(),
      toolsAdded: z.array(z.string()),
      toolsRemoved: z.array(z.string()),
      toolsChanged: z.array(z.string()),
      toolsReordered: z.boolean(),
    })
    .nullable(),
  /** The history was compacted before this request (the growth chart marks it). */
  compaction: z
    .object({
      evidence: compactionEvidenceSchema,
      marker: z.object({ typeRaw: z.string(), line: z.number().int() }).nullable(),
      tokensBefore: z.number().nullable(),
      tokensAfter: z.number().nullable(),
      tokensRemoved: z.number().nullable(),
      messagesRemoved: z.number().int().nullable(),
    })
    .nullable(),
  inputTokens: z.number().nullable(),
  inputTokensSource: tokenSourceSchema.nullable(),
  cachedInputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  /**
   * What this request added, by role and tool (role `tool`): estimated tokens, scaled to the
   * recorded growth when usage is recorded. Empty for the first request (it adds everything).
   */
  added: z.array(z.object({ role: z.string(), tool: z.string().nullable(), messages: z.number().int(), tokens: z.number().int() })),
});
export type RequestRow = z.infer<typeof requestRowSchema>;

export const runRequestsSchema = z.object({
  requests: z.array(requestRowSchema),
  /** Over the requests with an input-token count, in order (docs/semantics.md §9). */
  growth: z.object({
    /** Request indices the series below are over. */
    requestIndices: z.array(z.number().int()),
    cumulative: z.array(z.number()),
    /** Per request of `requestIndices`: its input minus the previous one's (the Δ column); null for the first. */
    steps: z.array(z.number().nullable()),
    /**
     * N×S + T×N(N+1)/2 fitted to the cumulative input; null with fewer than two points. `shape`:
     * what the fit says, by the sign of T and the fit's quality (shared/requests/contextGrowth.ts).
     */
    fit: z
      .object({
        prefixTokens: z.number(),
        tokensPerTurn: z.number(),
        predictedCumulative: z.array(z.number()),
        rSquared: z.number().nullable(),
        shape: z.enum(['irregular', 'flat', 'shrinking', 'quadratic']),
      })
      .nullable(),
    typicalGrowth: z.number().nullable(),
    /** Every request whose input grew over the previous counted one's, the most tokens added first. */
    largestGrowth: z.array(z.object({ requestIndex: z.number().int(), growth: z.number() })),
  }),
});

const paged = <T extends z.ZodType>(row: T) => z.object({ total: z.number().int(), offset: z.number().int(), rows: z.array(row) });

/** A page of a run's event list (`runEvents`): its events with the calls they issue, start or answer. */
const runEventsPage = paged(eventRowSchema).extend({ calls: z.array(callRowSchema), hiddenBookkeeping: z.number().int() });

/**
 * Asked with a jump: the pages of `pageSize` events of the run's list (as `runEvents` answers them)
 * that hold the rows within `around` of the position found, so the list shows the place jumped to
 * without asking again.
 */
const pagesAround = z.object({ pageSize: z.number().int().min(1).max(2000), around: z.number().int().min(0).max(2000) });

/** Each method: its request and response schema. */
export const apiMethods = {
  appInfo: { request: z.object({}), response: appInfoSchema },
  /** The notices not dismissed yet, oldest first. */
  notices: { request: z.object({}), response: z.array(noticeSchema) },
  dismissNotice: { request: z.object({ id: z.number().int() }), response: z.object({}) },
  /** The traces open in this window. */
  listTraces: { request: z.object({}), response: z.array(traceSummarySchema) },
  /** Shows the native open dialog (Electron only) and opens what the user picked. */
  openDialog: { request: z.object({}), response: z.array(traceSummarySchema) },
  /** Opens a file by path: a dropped file or a recent one (Electron only; refused by `loopscope serve`). */
  openPath: { request: z.object({ path: z.string().min(1).max(4096) }), response: traceSummarySchema },
  /** Re-reads a trace from its file (a changed file is ingested again). */
  reload: { request: z.object({ traceId }), response: traceSummarySchema },
  recentFiles: { request: z.object({}), response: z.array(z.string()) },
  trace: { request: z.object({ traceId }), response: traceSummarySchema },
  runs: {
    request: z.object({
      traceId,
      ...page,
      sort: runSortSchema.default('first_line'),
      descending: z.boolean().default(false),
      status: runStatusSchema.optional(),
      findingKind: findingKindSchema.optional(),
      /** Matched against run id, file and status. */
      text: z.string().max(500).optional(),
    }),
    response: paged(runRowSchema).extend({
      /**
       * Set while the trace is still being ingested: the rows are the runs stored so far (the table
       * fills in as a large file loads), sorted and filtered the same way, but their finding counts,
       * kinds and cost are not known yet (zero, empty and null), so a `findingKind` filter matches nothing.
       */
      partial: z.boolean().optional(),
    }),
  },
  run: {
    request: z.object({ traceId, runPk: z.number().int() }),
    response: z.object({
      run: runRowSchema,
      config: z.record(z.string(), z.unknown()).nullable(),
      task: z.string().nullable(),
      endLimit: z.string().nullable(),
      budgets: z.array(budgetUseSchema),
      children: z.array(z.object({ runPk: z.number().int(), runId: z.string(), callId: z.string().nullable() })),
      subAgents: z.array(subAgentCallSchema),
      /** The run's cost with its sub-agents', rolled up the chain of runs they started; null when it started none. */
      costWithSubAgents: costSchema.nullable(),
    }),
  },
  /**
   * A run's events in order, paged (a run can have a million), with the tool calls the page's
   * events issue, start or answer (`calls`): a view holds the calls of what it has shown, never all
   * of a run's. `hideBookkeeping` lists only the events that are not bookkeeping
   * (shared/trace/bookkeeping.ts), paged and counted over those; `hiddenBookkeeping` is how many
   * the run has either way. `collapsedSpans` (span begin event ids) leaves out the events inside
   * those spans: the list is paged and counted without them.
   */
  runEvents: {
    request: z.object({ traceId, runPk: z.number().int(), ...page, hideBookkeeping: z.boolean().default(false), collapsedSpans }),
    response: runEventsPage,
  },
  /**
   * Where an event sits in its run's event list (`index`) and in the list without bookkeeping
   * (`visibleIndex`, null when it is bookkeeping): for jumping to it. With `collapsedSpans`, both
   * count without the events inside those spans; an event inside one is at its span's header.
   * With `pages`, the pages of that list (without bookkeeping when `pages.hideBookkeeping`) around
   * the event, when it is in that list.
   */
  eventPosition: {
    request: z.object({ traceId, eventId: z.number().int(), collapsedSpans, pages: pagesAround.extend({ hideBookkeeping: z.boolean() }).optional() }),
    response: z.object({
      runPk: z.number().int(),
      index: z.number().int(),
      visibleIndex: z.number().int().nullable(),
      pages: z.array(runEventsPage).optional(),
    }),
  },
  /**
   * The model request an event belongs to: the run's request at or before it (a response's is the
   * request it answered), else the run's first; in a run whose requests are reconstructed, a
   * response is its own. Null when the run has none.
   */
  requestAt: {
    request: z.object({ traceId, eventId: z.number().int() }),
    response: z.object({ eventId: z.number().int(), line: z.number().int(), reconstructed: z.boolean() }).nullable(),
  },
  /**
   * A run's waterfall: its model and tool calls on a time axis (shared/analysis/waterfall.ts), each
   * on a track of its kind so parallel calls sit side by side; `untimed`: calls the trace records
   * no time for; `omitted`: calls past the run's first 5,000 of a kind, not drawn.
   */
  runWaterfall: {
    request: z.object({ traceId, runPk: z.number().int() }),
    response: z.object({
      spans: z.array(
        z.object({
          kind: z.enum(['model', 'tool']),
          /** The timeline row it stands for: the model response; a tool call's result (else the response that issued it). */
          eventId: z.number().int(),
          /** A tool call's issuing model response. */
          issuerEventId: z.number().int().nullable(),
          step: z.number().int().nullable(),
          /** A tool call's tool. */
          name: z.string().nullable(),
          failed: z.boolean(),
          startMs: z.number(),
          endMs: z.number(),
          track: z.number().int(),
        }),
      ),
      untimed: z.number().int(),
      omitted: z.number().int(),
    }),
  },
  /**
   * A step of a run (`at`), or the nearest one `after` or `before` it, and its first event's index
   * in the run's event list (without bookkeeping when `hideBookkeeping`); null when there is none.
   * With `pages`, the pages of that list around it.
   */
  stepPosition: {
    request: z.object({
      traceId,
      runPk: z.number().int(),
      step: z.number().int(),
      direction: z.enum(['at', 'after', 'before']),
      hideBookkeeping: z.boolean().default(false),
      collapsedSpans,
      pages: pagesAround.optional(),
    }),
    response: z.object({ step: z.number().int(), index: z.number().int(), pages: z.array(runEventsPage).optional() }).nullable(),
  },
  /**
   * Like every answer, masked: each credential in it replaced by its kind and public prefix
   * (shared/secrets/secretScanner.ts) — unless `revealSecrets`, the inspector's explicit reveal.
   */
  event: {
    request: z.object({
      traceId,
      eventId: z.number().int(),
      maxBytes: z
        .number()
        .int()
        .min(1)
        .max(64 * 1024 * 1024)
        .default(1024 * 1024),
      revealSecrets: z.boolean().default(false),
    }),
    response: z.object({
      event: eventRowSchema,
      runPk: z.number().int(),
      runId: z.string(),
      /** The record the event came from (for an event merged from several lines, the first). */
      record: rawRecordSchema.nullable(),
      /** Lines folded into this event (the other lines of a split record). */
      absorbedLines: z.array(z.number().int()),
      calls: z.array(callRowSchema),
      findings: z.array(findingRowSchema),
      /** What the event says, as its format's adapter reads the record: null when the record was not read whole or its adapter needs the lines around it. */
      content: eventContentSchema.nullable(),
      /** The call this event answers (a tool result or a not-executed mark), with the event that issued it. */
      answers: callRowSchema.nullable(),
    }),
  },
  calls: {
    request: z.object({
      traceId,
      ...page,
      runPk: z.number().int().optional(),
      name: z.string().max(500).optional(),
      state: callStateSchema.optional(),
      /** Part of the tool name, call id, arguments or error line (case-insensitive). */
      text: z.string().max(500).optional(),
      /** Default: log order. */
      sort: callSortSchema.optional(),
      descending: z.boolean().optional(),
    }),
    response: paged(callRowSchema).extend({ names: z.array(z.string()) }),
  },
  /** Per tool, how long its calls took: p50, p95 and max over the calls with a recorded latency. */
  callLatency: {
    request: z.object({ traceId, runPk: z.number().int().optional() }),
    /** `runs`: how many runs issued calls (the Calls list names the run only when there are several). */
    response: z.object({ tools: z.array(toolLatencySchema), runs: z.number().int() }),
  },
  findings: {
    request: z.object({
      traceId,
      ...page,
      runPk: z.number().int().optional(),
      kind: findingKindSchema.optional(),
      severity: severitySchema.optional(),
      /** Only the findings whose message has this template (shared/findingTemplate.ts): one group's occurrences. */
      templateKey: z.string().max(64).optional(),
      /** Page over the groups of identical findings (same template) instead: `total` counts groups, `templates` holds them, `rows` is empty. */
      templates: z.boolean().optional(),
    }),
    response: paged(findingRowSchema).extend({
      /** Counts per kind and severity over the whole trace (or run), for grouping. */
      groups: z.array(z.object({ kind: findingKindSchema, severity: severitySchema, count: z.number().int() })),
      /** With `templates`: the groups of identical findings, most occurrences first, each with its first occurrence. */
      templates: z.array(z.object({ key: z.string(), template: z.string(), count: z.number().int(), first: findingRowSchema })).optional(),
    }),
  },
  parseErrors: { request: z.object({ traceId, ...page }), response: paged(parseErrorRowSchema) },
  /** The trace's cost: every response of every run in its files (docs/semantics.md §19). */
  traceCost: { request: z.object({ traceId }), response: costSchema },
  /**
   * Full-text search (SQLite FTS5) over the trace's messages, tool arguments and results. `query`
   * is plain words (all must match, prefix match on the last), not FTS syntax. Hits come in trace
   * order: run, step, line.
   */
  search: {
    request: z.object({
      traceId,
      query: z.string().min(1).max(500),
      ...page,
      runPk: z.number().int().optional(),
      /** Only the hits after this event, in the order hits are listed (run, step, line): the next match. */
      afterEventId: z.number().int().optional(),
    }),
    response: paged(searchHitSchema),
  },
  /**
   * Diffs a model request against the previous request of its run (or `previousEventId`), from the
   * requests the trace logged (canonical `model_request`, HTTP exchange logs). `unavailable` when a
   * record holds no messages to compare.
   */
  /** A run's model requests (logged or reconstructed) and its context growth. */
  requests: { request: z.object({ traceId, runPk: z.number().int() }), response: runRequestsSchema },
  /** Two runs of the trace side by side: their measures with B − A, their turns aligned, the first divergence (docs/semantics.md §16). */
  compareRuns: {
    request: z.object({
      traceId,
      runPkA: z.number().int(),
      runPkB: z.number().int(),
      /** B's trace, when it is not A's (two runs picked in the library). */
      traceIdB: traceId.optional(),
    }),
    response: compareReportSchema,
  },
  /** Where the library's indexing is (docs/semantics.md §18); null when no directory was given, so there is no library. */
  libraryStatus: { request: z.object({}), response: libraryStatusSchema.nullable() },
  /** The library's runs under the filter, sorted (runs without the measure last), paged. */
  libraryRuns: {
    request: z.object({ filter: libraryFilterSchema.default({}), sort: librarySortSchema.default('started'), descending: z.boolean().default(true), ...page }),
    response: paged(libraryRunSchema),
  },
  /** What the library's runs under the filter add up to: the start page's charts and their tables. */
  libraryAggregates: { request: z.object({ filter: libraryFilterSchema.default({}) }), response: libraryAggregatesSchema },
  /** Failure signatures of the runs under the filter (docs/semantics.md §15), the most widespread first. */
  librarySignatures: { request: z.object({ filter: libraryFilterSchema.default({}), ...page }), response: paged(librarySignatureSchema) },
  /**
   * Full-text search across every trace of the library (the words as the trace view's search takes
   * them), hits grouped by trace and run. Stops at `limit` runs: `complete` is false when more may match.
   */
  librarySearch: {
    request: z.object({ query: z.string().min(1).max(500), limit: z.number().int().min(1).max(500).default(100) }),
    response: z.object({
      hits: z.array(librarySearchHitSchema),
      tracesSearched: z.number().int(),
      /** Of those, the traces read: the others' term filters ruled the words out (shared/library/termFilter.ts). */
      tracesOpened: z.number().int(),
      complete: z.boolean(),
    }),
  },
  /**
   * `eventId`: a `model_request` event, or (runs whose format logs no requests) a model response,
   * meaning the request reconstructed for it. Without `previousEventId`, against the run's previous request.
   */
  requestDiff: {
    request: z.object({
      traceId,
      eventId: z.number().int(),
      previousEventId: z.number().int().optional(),
      /** The trace of `previousEventId` when it is another (two runs of two traces compared at their divergence). */
      previousTraceId: traceId.optional(),
    }),
    response: requestDiffSchema,
  },
  rawLine: {
    request: z.object({
      traceId,
      sourceId: z.number().int(),
      line: z.number().int(),
      maxBytes: z
        .number()
        .int()
        .min(1)
        .max(64 * 1024 * 1024)
        .default(1024 * 1024),
    }),
    response: rawRecordSchema,
  },
} as const;

export type ApiMethod = keyof typeof apiMethods;
export type ApiRequest<M extends ApiMethod> = z.input<(typeof apiMethods)[M]['request']>;
export type ApiParsedRequest<M extends ApiMethod> = z.output<(typeof apiMethods)[M]['request']>;
export type ApiResponse<M extends ApiMethod> = z.output<(typeof apiMethods)[M]['response']>;

/** What the renderer calls; both transports implement it. */
export type LoopscopeApi = { [M in ApiMethod]: (request: ApiRequest<M>) => Promise<ApiResponse<M>> };

export function isApiMethod(name: string): name is ApiMethod {
  return Object.hasOwn(apiMethods, name);
}

/**
 * The codes an API failure carries (`apiErrorSchema.error.code` stays a string, so a transport's
 * own codes fit too): `invalid_request` (the request does not match its schema; the message names
 * the field), `not_found` (no such method, trace, run, event or line), `not_allowed` (opening by
 * path or dialog under `loopscope serve`), `not_ready` (the trace is still being ingested; only
 * `runs` answers then), `trace_file` (the trace file cannot be read: the message names the file
 * and the reason), `unavailable` (the feature is not there in this build), `internal` (a bug).
 */
export const apiErrorCodes = ['invalid_request', 'not_found', 'not_allowed', 'not_ready', 'trace_file', 'unavailable', 'internal'] as const;
export type ApiErrorCode = (typeof apiErrorCodes)[number];

/** An API failure as it crosses a transport: a message for the user and a machine-readable code. */
export const apiErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/** What the preload exposes as `window.loopscope`: one call, the rest is the API. */
export interface LoopscopeBridge {
  call(method: string, request: unknown): Promise<unknown>;
  /** The file-system path of a dropped file (Electron's webUtils), or null. */
  pathForFile(file: File): string | null;
}
