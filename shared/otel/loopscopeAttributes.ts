/**
 * Loopscope's own span attributes and span events (`loopscope.*`), for what the GenAI semantic
 * conventions have no words for. The OTLP exporter (src-main/otlp/otlpExport.ts) writes them and
 * the OTel adapter (src-main/engine/adapters/otel/) reads them, so that a trace exported and read
 * back is the trace it was (docs/otlp.md, "Exporting to OpenTelemetry"); spans of other
 * instrumentations never carry them.
 */
export const loopscopeAttributes = {
  /** The run's id in the trace it was exported from (the span's own run id is derived from its ids). */
  runId: 'loopscope.run.id',
  /** The run's terminal status as Loopscope normalized it (docs/semantics.md §2), `unterminated` for a run that had no end. */
  runStatus: 'loopscope.run.status',
  /** The terminal status as the loop wrote it. */
  runStatusRaw: 'loopscope.run.status_raw',
  /** The limit a `budget_exceeded` run stopped on (docs/semantics.md §5). */
  runLimit: 'loopscope.run.limit',
  /** The budgets the run declared, as JSON (docs/semantics.md §5). */
  runBudgets: 'loopscope.run.budgets',
  /** On a model call: its outcome (docs/semantics.md §1), which a finish reason alone does not always carry. */
  responseOutcome: 'loopscope.response.outcome',
  responseIncompleteReason: 'loopscope.response.incomplete_reason',
  /** On a model call: its cost in US dollars as the trace recorded it (no GenAI attribute carries a cost). */
  usageCostUsd: 'loopscope.usage.cost_usd',
  /** On a tool call: false when the loop logged no start for it (only its result). */
  callStarted: 'loopscope.call.started',
  /** On a tool call: true when it never got a result (dangling, or pending in a paused run); its end is then not a result. */
  callUnanswered: 'loopscope.call.unanswered',
  /** On a tool call: false when no model response issued it (an orphan result). */
  callIssued: 'loopscope.call.issued',
  /** On a tool call: true when the loop marked it not executed instead of answering it. */
  callNotExecuted: 'loopscope.call.not_executed',
  /** Why the loop did not execute it, as it said (content: only exported with it). */
  callSkipReason: 'loopscope.call.skip_reason',
  /** The span event of one finding, on the span it concerns. */
  findingEvent: 'loopscope.finding',
  findingKind: 'loopscope.finding.kind',
  findingSeverity: 'loopscope.finding.severity',
  findingMessage: 'loopscope.finding.message',
  findingStep: 'loopscope.finding.step',
  findingCallId: 'loopscope.finding.call_id',
  findingLine: 'loopscope.finding.line',
  /** Kind-specific facts, as JSON (content: only exported with it). */
  findingDetails: 'loopscope.finding.details',
} as const;

/** A boolean attribute as written in OTLP (`boolValue`) or as text (`"true"`). */
export function flagAttr(attributes: Record<string, unknown>, key: string): boolean | undefined {
  const value = attributes[key];
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}
