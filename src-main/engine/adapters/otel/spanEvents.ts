/**
 * A span's start and end as canonical events: a run's start and end, a model call's request and
 * response, a tool call's start and result.
 */
import { modelOutcomeSchema, type CanonicalEvent, type ToolCall } from '../../../../shared/trace/canonicalEvents';
import { normalizeTerminalStatus } from '../../../../shared/trace/runStatus';
import { contentHash } from '../../bytes/contentHash';
import { isRecord, type ResultDigest } from '../formatAdapter';
import { defined, definedIfAny, modelRequest, modelResponse, runEnd, runStart, toolCallNotExecuted, toolCallStart, toolResult } from '../kit/events';
import {
  arrayOrUndefined,
  contentAttr,
  errorOf,
  finishReasonsOf,
  httpStatusOf,
  numberAttr,
  outputContentOf,
  parseJsonish,
  requestParamsOf,
  stringAttr,
} from './attributes';
import { budgetStopOf } from './budgetStops';
import { loopscopeAttributes } from '../../../../shared/otel/loopscopeAttributes';
import type { OtelSpan } from './spans';

export function runStartOf(span: OtelSpan, runId: string, isAgent: boolean): CanonicalEvent {
  const attributes = span.attributes;
  const tools = arrayOrUndefined(parseJsonish(attributes['gen_ai.tool.definitions']));
  const agent = {
    id: stringAttr(attributes, 'gen_ai.agent.id'),
    name: stringAttr(attributes, 'gen_ai.agent.name'),
    description: stringAttr(attributes, 'gen_ai.agent.description'),
  };
  const provider = stringAttr(attributes, 'gen_ai.provider.name') ?? stringAttr(attributes, 'gen_ai.system');
  const model = stringAttr(attributes, 'gen_ai.request.model');
  const conversationId = stringAttr(attributes, 'gen_ai.conversation.id');
  const task = contentAttr(span, 'gen_ai.input.messages');
  // Budgets have no GenAI attribute: a run exported by Loopscope declares them in its own.
  const budgets = parseJsonish(attributes[loopscopeAttributes.runBudgets]);
  return runStart({
    run_id: runId,
    ts: span.start!.iso,
    config: defined({
      provider,
      model,
      span: span.name,
      agent: isAgent ? defined(agent) : undefined,
      conversation_id: conversationId,
      service: span.service ?? undefined,
      tools,
      budgets: isRecord(budgets) ? budgets : undefined,
    }),
    task,
  });
}

/**
 * The span's status code as written (`OK`, `ERROR`, `UNSET`), but `budget_exceeded` for a span that
 * failed on a limit (budgetStops.ts); see docs/formats/otel.md for how it normalizes. A run span
 * exported by Loopscope says its status in its own attribute, which wins.
 */
export function runEndOf(span: OtelSpan, runId: string): CanonicalEvent {
  const error = span.statusCode === 'ERROR' ? errorOf(span) : undefined;
  const budgetStop = budgetStopOf(span);
  const output = contentAttr(span, 'gen_ai.output.messages');
  const reason =
    span.statusCode === 'ERROR'
      ? [error?.code, error?.message].filter(Boolean).join(': ') || 'span status ERROR'
      : span.statusCode === 'UNSET'
        ? 'the span ended with status UNSET: no error was recorded'
        : undefined;
  const exported = stringAttr(span.attributes, loopscopeAttributes.runStatus);
  if (exported !== undefined) {
    // The status as the loop wrote it when it still reads as the exported one, else the exported one.
    const raw = stringAttr(span.attributes, loopscopeAttributes.runStatusRaw);
    const status = raw !== undefined && normalizeTerminalStatus({ status: raw }).status === exported ? raw : exported;
    const limit = stringAttr(span.attributes, loopscopeAttributes.runLimit);
    return runEnd({ run_id: runId, ts: span.end!.iso, status, limit, reason: span.statusCode === 'ERROR' ? reason : undefined, output });
  }
  const status = budgetStop !== undefined ? 'budget_exceeded' : span.statusCode;
  return runEnd({ run_id: runId, ts: span.end!.iso, status, limit: budgetStop?.limit, reason, output });
}

export function modelRequestOf(span: OtelSpan, runId: string, step: number | undefined): CanonicalEvent {
  const attributes = span.attributes;
  const model = stringAttr(attributes, 'gen_ai.request.model');
  const provider = stringAttr(attributes, 'gen_ai.provider.name') ?? stringAttr(attributes, 'gen_ai.system');
  const messages = arrayOrUndefined(contentAttr(span, 'gen_ai.input.messages'));
  const system = contentAttr(span, 'gen_ai.system_instructions');
  const tools = arrayOrUndefined(parseJsonish(attributes['gen_ai.tool.definitions']));
  const params = requestParamsOf(span);
  return modelRequest({ run_id: runId, step, ts: span.start!.iso, model, provider, system, messages, tools, params });
}

export function modelResponseOf(span: OtelSpan, runId: string, step: number | undefined, derivedCalls: ToolCall[]): CanonicalEvent {
  const attributes = span.attributes;
  const content = outputContentOf(span);
  const reasons = finishReasonsOf(span);
  const finishReason = reasons[0] ?? content?.finishReason;
  const calls = content !== undefined ? content.calls : derivedCalls;
  const inputTokens = numberAttr(attributes, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const outputTokens = numberAttr(attributes, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens');
  const cachedTokens = numberAttr(
    attributes,
    'gen_ai.usage.cache_read.input_tokens',
    'gen_ai.usage.cache_read_input_tokens',
    'gen_ai.usage.input_tokens.cached',
  );
  const cacheWriteTokens = numberAttr(
    attributes,
    'gen_ai.usage.cache_creation.input_tokens',
    'gen_ai.usage.cache_creation_input_tokens',
    'gen_ai.usage.input_tokens.cache_write',
  );
  const reasoningTokens = numberAttr(
    attributes,
    'gen_ai.usage.reasoning.output_tokens',
    'gen_ai.usage.reasoning_tokens',
    'gen_ai.usage.output_tokens.reasoning',
  );
  const usage = definedIfAny({
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cached_input_tokens: cachedTokens,
    cache_write_tokens: cacheWriteTokens,
    reasoning_tokens: reasoningTokens,
    cost_usd: numberAttr(attributes, loopscopeAttributes.usageCostUsd),
  });
  const responseId = stringAttr(attributes, 'gen_ai.response.id');
  const model = stringAttr(attributes, 'gen_ai.response.model') ?? stringAttr(attributes, 'gen_ai.request.model');
  const provider = stringAttr(attributes, 'gen_ai.provider.name') ?? stringAttr(attributes, 'gen_ai.system');
  const failed = span.statusCode === 'ERROR';
  const error = failed ? errorOf(span) : undefined;
  // A model call exported by Loopscope keeps the outcome it had (a broken stream has no finish reason to say it).
  const exportedOutcome = modelOutcomeSchema.safeParse(attributes[loopscopeAttributes.responseOutcome]).data;
  const exportedReason = stringAttr(attributes, loopscopeAttributes.responseIncompleteReason);
  return modelResponse({
    run_id: runId,
    step,
    ts: span.end!.iso,
    // A failed model call has no response to classify: it is incomplete, for the reason the span gives.
    // A failed model span is the provider call failing: its error is the call's api_error (docs/semantics.md §7).
    outcome: failed ? 'incomplete' : exportedOutcome,
    incomplete_reason: exportedReason ?? (failed ? `error${error?.code ? `: ${error.code}` : ''}${error?.message ? ` (${error.message})` : ''}` : undefined),
    api_error: failed ? { ...httpStatusOf(attributes), ...defined({ type: error?.code, message: error?.message }) } : undefined,
    finish_reason: finishReason,
    finish_reasons: reasons.length > 1 ? reasons : undefined,
    text: content?.text,
    tool_calls: calls.length > 0 ? calls : undefined,
    tool_calls_from: content === undefined && calls.length > 0 ? 'execute_tool spans' : undefined,
    usage,
    latency_ms: span.start !== null ? Math.max(0, (span.end!.micros - span.start.micros) / 1000) : undefined,
    response_id: responseId,
    model,
    provider,
  });
}

export function toolCallStartOf(span: OtelSpan, runId: string, step: number | null, callId: string): CanonicalEvent {
  const name = stringAttr(span.attributes, 'gen_ai.tool.name');
  const args = span.attributes['gen_ai.tool.call.arguments'];
  return toolCallStart({ run_id: runId, step: step ?? undefined, ts: span.start!.iso, call_id: callId, name, arguments: args });
}

/** `childRunId`: the run of a sub-agent the call started (an agent span nested under the tool span). */
export function toolResultOf(
  span: OtelSpan,
  runId: string,
  step: number | null,
  callId: string,
  childRunId: string | undefined,
): { event: CanonicalEvent; digest?: ResultDigest } {
  const name = stringAttr(span.attributes, 'gen_ai.tool.name');
  const output = span.attributes['gen_ai.tool.call.result'];
  const failed = span.statusCode === 'ERROR';
  const event = toolResult({
    run_id: runId,
    step: step ?? undefined,
    ts: span.end!.iso,
    call_id: callId,
    name,
    status: failed ? 'error' : 'ok',
    output,
    error: failed ? errorOf(span) : undefined,
    latency_ms: span.start !== null ? Math.max(0, (span.end!.micros - span.start.micros) / 1000) : undefined,
    child_run_id: childRunId,
  });
  // Without content capture two results cannot be compared: each gets its own identity, so the
  // repeated-action analysis never takes "no output recorded" for "the same output".
  const digest =
    output === undefined && !failed ? { hash: contentHash(`otel-span\u0000${span.traceId}\u0000${span.spanId}`), preview: '', chars: 0 } : undefined;
  return digest === undefined ? { event } : { event, digest };
}

/** A tool span exported by Loopscope for a call the loop marked not executed: that mark, at the span's end. */
export function toolCallNotExecutedOf(span: OtelSpan, runId: string, step: number | null, callId: string): CanonicalEvent {
  const name = stringAttr(span.attributes, 'gen_ai.tool.name');
  const reason = stringAttr(span.attributes, loopscopeAttributes.callSkipReason);
  return toolCallNotExecuted({ run_id: runId, step: step ?? undefined, ts: span.end!.iso, call_id: callId, name, reason });
}
