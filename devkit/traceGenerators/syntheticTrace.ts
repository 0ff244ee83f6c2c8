/**
 * Deterministic synthetic canonical trace (shared/trace/canonicalEvents.ts) for benchmarks.
 *
 * Many runs, a few interleaved at a time; each run = run_start, steps (model_request with a
 * growing history, model_response with 0–3 parallel tool calls, tool_call_start, tool_result
 * with multi-KB outputs), run_end. Sprinkled with the anomalies Loopscope looks for and a few
 * garbage (non-JSON) lines. Written streaming: only the active runs' histories are in memory.
 * Written to a file by `npx tsx scripts/generate-synthetic-trace.ts`.
 */
import { writeGeneratedTrace } from './generatedTraceFile';
import { Prng } from './prng';
import {
  codeLines,
  fatalErrors,
  finishReasons,
  garbageLines,
  paragraph,
  providers,
  retryableErrors,
  sentence,
  systemPrompt,
  task,
  toolArguments,
  toolOutput,
  toolSpecs,
  type ToolName,
} from './vocabulary';

/** Bump when the output for a given (size, seed) changes, so cached files are regenerated. */
export const GENERATOR_VERSION = 1;

export interface GenerateOptions {
  targetBytes: number;
  seed: number;
  outPath: string;
  /** Called about every 16 MB written. */
  onProgress?: (bytesWritten: number) => void;
}

export interface GenerateStats {
  generatorVersion: number;
  seed: number;
  targetBytes: number;
  bytes: number;
  lines: number;
  events: number;
  garbageLines: number;
  runs: number;
  maxLineBytes: number;
  eventTypes: Record<string, number>;
  scenarios: Record<string, number>;
  seconds: number;
}

type Scenario = 'normal' | 'budget_tool_calls' | 'budget_turns' | 'dangling_call' | 'repeated_action' | 'refusal' | 'truncated' | 'tool_failure' | 'crashed';

const scenarioWeights: readonly (readonly [Scenario, number])[] = [
  ['normal', 80],
  ['budget_tool_calls', 4],
  ['budget_turns', 2],
  ['dangling_call', 2],
  ['repeated_action', 4],
  ['refusal', 1.5],
  ['truncated', 2.5],
  ['tool_failure', 3],
  ['crashed', 1],
];

const toolWeights: readonly (readonly [ToolName, number])[] = [
  ['read_file', 30],
  ['search_code', 20],
  ['list_dir', 15],
  ['run_tests', 12],
  ['http_get', 10],
  ['write_file', 8],
];

/** Lines at most this long (the guard compacts history before a request grows past it). */
const MAX_REQUEST_BYTES = 1_800_000;
/** Concurrent runs whose lines interleave. */
const ACTIVE_RUNS = 4;
/** Probability, per line, of switching to another active run. */
const SWITCH_PROBABILITY = 0.12;
/** On average one garbage line per this many bytes written (a few dozen in 200 MB). */
const GARBAGE_EVERY_BYTES = 8 * 1024 * 1024;

const toolsJson = JSON.stringify(
  toolSpecs.map((spec) => ({
    type: 'function',
    function: { name: spec.name, description: spec.description, parameters: { type: 'object', properties: spec.properties } },
  })),
);
const systemJson = JSON.stringify(systemPrompt);

interface PlannedCall {
  call_id: string;
  name: ToolName;
  args: Record<string, unknown>;
  argsJson: string;
}

interface RunContext {
  rng: Prng;
  index: number;
  stats: GenerateStats;
}

/** One run's lines, produced lazily so several runs can interleave. */
function* runLines({ rng, index, stats }: RunContext): Generator<string> {
  const runId = `run-${String(index).padStart(6, '0')}-${rng.hex(6)}`;
  const { provider, model, style } = rng.pick(providers);
  const scenario = rng.weighted(scenarioWeights);
  stats.scenarios[scenario] = (stats.scenarios[scenario] ?? 0) + 1;

  const budgets = {
    max_turns: rng.pick([12, 16, 20, 30, 40]),
    max_tool_calls: rng.pick([24, 40, 60, 100]),
    deadline_ms: rng.pick([300_000, 600_000, 1_800_000]),
    max_output_tokens: rng.pick([4096, 8192, 16_000]),
  };
  if (scenario === 'budget_tool_calls') budgets.max_tool_calls = rng.int(5, 12);

  let planned = rng.logNormalInt(6, 0.7, 1, 36);
  if (scenario === 'budget_tool_calls') planned = 60;
  if (scenario === 'budget_turns') planned = budgets.max_turns;
  if (scenario === 'repeated_action') planned = Math.max(planned, 8);
  planned = Math.min(planned, budgets.max_turns);
  const repeatCount = rng.int(3, 4);
  const anomalyStep = scenario === 'repeated_action' ? rng.int(1, Math.max(1, planned - repeatCount - 1)) : rng.int(1, Math.max(1, planned - 1));
  const crashStep = rng.int(1, planned);
  const recoversFromTruncation = scenario === 'truncated' && rng.chance(0.5);

  // Short runs resend the whole history; long ones resend system + task + the last few turns.
  const fullHistory = planned <= 10;
  const keepTurns = rng.int(2, 4);
  const streaming = rng.chance(0.06);
  const writesOutcome = rng.chance(0.7);
  const permission = rng.pick(['auto', 'allowed', undefined]);
  const fr = finishReasons[style];

  let clock = Date.UTC(2025, 5, 1) + index * 41_000 + rng.int(0, 40_000);
  const ts = (advanceMs: number): string => {
    clock += advanceMs;
    return new Date(clock).toISOString();
  };

  const userTask = task(rng);
  const firstMessage = JSON.stringify({ role: 'user', content: `${userTask}\n\n${paragraph(rng, rng.int(1, 4))}` });
  /** Serialized messages, one group per turn (assistant message + its tool results). */
  const turns: string[][] = [];
  let toolCalls = 0;
  let retry: PlannedCall | undefined;
  let repeated: PlannedCall | undefined;
  let repeatedOutput: string | Record<string, unknown> | undefined;

  yield JSON.stringify({
    type: 'run_start',
    run_id: runId,
    ts: ts(0),
    config: {
      provider,
      model,
      versions: { loop: '2.3.1', sdk: style === 'anthropic' ? '@anthropic-ai/sdk 0.52.0' : 'openai 5.8.2', tool_schema: 'v7' },
      budgets,
    },
    task: userTask,
  });

  const newCallId = (): string => {
    return style === 'anthropic' ? `toolu_${rng.hex(24)}` : `call_${rng.hex(24)}`;
  };
  const planCall = (name: ToolName = rng.weighted(toolWeights), args = toolArguments(rng, name)): PlannedCall => ({
    call_id: newCallId(),
    name,
    args,
    argsJson: JSON.stringify(args),
  });
  const end = (step: number, fields: Record<string, unknown>): string =>
    JSON.stringify({ type: 'run_end', run_id: runId, step, ts: ts(rng.int(5, 200)), steps: step, tool_calls: toolCalls, ...fields });

  for (let step = 1; ; step++) {
    if (scenario === 'crashed' && step > crashStep) return; // killed: no terminal event

    // --- model_request -----------------------------------------------------------------------
    const history: string[] = [firstMessage];
    const from = fullHistory ? 0 : Math.max(0, turns.length - keepTurns);
    for (let t = from; t < turns.length; t++) history.push(...(turns[t] ?? []));
    let messagesJson = history.join(',');
    while (messagesJson.length > MAX_REQUEST_BYTES && history.length > 2) {
      history.splice(1, 1);
      messagesJson = history.join(',');
    }
    const head = JSON.stringify({
      type: 'model_request',
      run_id: runId,
      step,
      step_id: `${runId}:${step}`,
      ts: ts(rng.int(2, 60)),
      provider,
      model,
      params: { temperature: 0.2, max_tokens: budgets.max_output_tokens, tool_choice: 'auto' },
    });
    const requestLine = `${head.slice(0, -1)},"system":${systemJson},"tools":${toolsJson},"messages":[${messagesJson}]}`;
    yield requestLine;

    // --- decide the response -------------------------------------------------------------------
    type Kind = 'final' | 'tools' | 'refusal' | 'length';
    let kind: Kind = step >= planned ? 'final' : 'tools';
    if (scenario === 'budget_turns' || scenario === 'budget_tool_calls') kind = 'tools';
    if (scenario === 'refusal' && step === anomalyStep) kind = 'refusal';
    if (scenario === 'truncated' && step === anomalyStep) kind = 'length';

    const calls: PlannedCall[] = [];
    if (kind === 'tools') {
      const n = rng.weighted([
        [1, 60],
        [2, 22],
        [3, 12],
      ] as const);
      if (scenario === 'repeated_action' && step >= anomalyStep && step < anomalyStep + repeatCount) {
        repeated ??= planCall('search_code');
        // Same name and arguments, fresh call id.
        calls.push({ ...repeated, call_id: newCallId() });
      } else {
        if (retry) calls.push({ ...retry, call_id: newCallId() });
        retry = undefined;
        while (calls.length < n) calls.push(planCall());
      }
    }

    const text =
      kind === 'final'
        ? `${paragraph(rng, rng.int(3, 8))}\n\n${rng.chance(0.4) ? '```ts\n' + codeLines(rng, rng.int(4, 16)) + '\n```' : ''}`
        : kind === 'length'
          ? paragraph(rng, rng.int(6, 14)).slice(0, -7)
          : rng.chance(0.5)
            ? sentence(rng)
            : '';
    const responseId = style === 'anthropic' ? `msg_${rng.hex(24)}` : `chatcmpl-${rng.hex(24)}`;
    const finishReason = kind === 'final' ? fr.stop : kind === 'tools' ? fr.tools : kind === 'length' ? fr.length : fr.refusal;
    const toolCallsOut = calls.map((c) => ({
      call_id: c.call_id,
      name: c.name,
      arguments: style === 'anthropic' ? c.args : c.argsJson,
    }));

    if (streaming) {
      for (let i = 0; i < text.length; i += 80) {
        yield JSON.stringify({ type: 'stream_fragment', run_id: runId, step, response_id: responseId, text_delta: text.slice(i, i + 80) });
      }
      const pending = calls.map((c, index) => ({ c, index, sent: -1 }));
      while (pending.length > 0) {
        const k = rng.int(0, pending.length - 1);
        const p = pending[k];
        if (!p) break;
        const first = p.sent < 0;
        const start = Math.max(0, p.sent);
        const chunk = p.c.argsJson.slice(start, start + rng.int(12, 64));
        p.sent = start + chunk.length;
        yield JSON.stringify({
          type: 'stream_fragment',
          run_id: runId,
          step,
          response_id: responseId,
          index: p.index,
          ...(first ? { call_id: p.c.call_id, name: p.c.name } : {}),
          arguments_delta: chunk,
        });
        if (p.sent >= p.c.argsJson.length) pending.splice(k, 1);
      }
      yield JSON.stringify({ type: 'stream_fragment', run_id: runId, step, response_id: responseId, finish_reason: finishReason });
    }

    // --- model_response ------------------------------------------------------------------------
    const outputTokens = Math.round(text.length / 4) + calls.reduce((sum, c) => sum + Math.round(c.argsJson.length / 3), 0) + rng.int(5, 40);
    const inputTokens = Math.round(requestLine.length / 3.8);
    const outcome = kind === 'final' ? 'final' : kind === 'tools' ? 'tool_calls' : kind === 'refusal' ? 'refusal' : 'incomplete';
    yield JSON.stringify({
      type: 'model_response',
      run_id: runId,
      step,
      ts: ts(rng.int(400, 9000)),
      response_id: responseId,
      model,
      ...(writesOutcome || kind === 'refusal' ? { outcome } : {}),
      text: kind === 'refusal' ? null : text,
      ...(calls.length > 0 ? { tool_calls: toolCallsOut } : {}),
      ...(kind === 'refusal' ? { refusal: 'I can’t help with modifying credentials stored in this repository.' } : {}),
      ...(kind === 'length' ? { incomplete_reason: 'max_output_tokens' } : {}),
      finish_reason: finishReason,
      usage: {
        input_tokens: inputTokens,
        output_tokens: kind === 'length' ? budgets.max_output_tokens : outputTokens,
        ...(step > 1 ? { cached_input_tokens: Math.round(inputTokens * 0.6) } : {}),
      },
      latency_ms: rng.int(350, 12_000),
    });

    if (kind === 'final') {
      yield end(step, { status: 'MODEL_FINISHED', output: text.slice(0, 400) });
      return;
    }
    if (kind === 'refusal') {
      yield end(step, { status: 'refused', reason: 'model refused' });
      return;
    }
    if (kind === 'length') {
      if (!recoversFromTruncation) {
        yield end(step, { status: 'failed', reason: 'model output truncated (finish_reason=length)' });
        return;
      }
      turns.push([JSON.stringify({ role: 'assistant', content: text }), JSON.stringify({ role: 'user', content: 'Your answer was cut off. Continue.' })]);
      continue;
    }

    // --- tool calls (budget check before acting) -----------------------------------------------
    const allowed = Math.max(0, Math.min(calls.length, budgets.max_tool_calls - toolCalls));
    const executed = calls.slice(0, allowed);
    const skipped = calls.slice(allowed);
    for (const c of executed) {
      yield JSON.stringify({
        type: 'tool_call_start',
        run_id: runId,
        step,
        ts: ts(rng.int(1, 20)),
        call_id: c.call_id,
        name: c.name,
        arguments: c.args,
        ...(permission ? { permission } : {}),
      });
    }
    toolCalls += executed.length;

    const order = executed.map((c) => c);
    for (let i = order.length - 1; i > 0; i--) {
      const j = rng.int(0, i);
      const a = order[i];
      const b = order[j];
      if (a && b) [order[i], order[j]] = [b, a];
    }
    const dangling = scenario === 'dangling_call' && step === anomalyStep ? order[order.length - 1] : undefined;
    const assistantMsg = JSON.stringify({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((c) => ({ id: c.call_id, type: 'function', function: { name: c.name, arguments: c.argsJson } })),
    });
    const group = [assistantMsg];
    let fatal = false;
    for (const c of order) {
      if (c === dangling) continue;
      const isRepeat = repeated !== undefined && c.name === repeated.name && c.argsJson === repeated.argsJson;
      let result: Record<string, unknown>;
      if (scenario === 'tool_failure' && step === anomalyStep && c === order[0]) {
        result = { status: 'error', error: { ...rng.pick(fatalErrors), retryable: false, details_ref: `err-${rng.hex(10)}` } };
        fatal = true;
      } else if (!isRepeat && rng.chance(0.035)) {
        result = { status: 'error', error: { ...rng.pick(retryableErrors), retryable: true } };
        retry = c;
      } else {
        const output = isRepeat
          ? (repeatedOutput ??= toolOutput(rng, c.name, rng.int(1024, 8192)))
          : toolOutput(rng, c.name, rng.logNormalInt(3000, 0.6, 1024, 8192));
        result = { status: 'ok', output };
      }
      yield JSON.stringify({
        type: 'tool_result',
        run_id: runId,
        step,
        ts: ts(rng.int(5, 3000)),
        call_id: c.call_id,
        name: c.name,
        ...result,
        latency_ms: rng.int(3, 3000),
      });
      const content = result.status === 'ok' ? result.output : result.error;
      group.push(JSON.stringify({ role: 'tool', tool_call_id: c.call_id, content: typeof content === 'string' ? content : JSON.stringify(content) }));
    }
    for (const c of skipped) {
      yield JSON.stringify({ type: 'tool_call_not_executed', run_id: runId, step, ts: ts(1), call_id: c.call_id, name: c.name, reason: 'budget_exhausted' });
    }
    turns.push(group);

    if (dangling) {
      yield end(step, { status: 'failed', reason: 'tool worker lost' });
      return;
    }
    if (fatal) {
      yield end(step, { status: 'failed', reason: 'unrecoverable tool error' });
      return;
    }
    if (skipped.length > 0 || (scenario === 'budget_tool_calls' && toolCalls >= budgets.max_tool_calls)) {
      yield end(step, { status: 'BUDGET_EXCEEDED', limit: 'max_tool_calls', reason: `tool call budget exhausted (${toolCalls}/${budgets.max_tool_calls})` });
      return;
    }
    if (step >= budgets.max_turns) {
      yield end(step, { status: 'BUDGET_EXCEEDED', limit: 'max_turns', hitCap: true, output: '' });
      return;
    }
  }
}

/** The counts of a generator about to start. */
export function emptyStats(generatorVersion: number, options: Pick<GenerateOptions, 'seed' | 'targetBytes'>): GenerateStats {
  const { seed, targetBytes } = options;
  return {
    generatorVersion,
    seed,
    targetBytes,
    bytes: 0,
    lines: 0,
    events: 0,
    garbageLines: 0,
    runs: 0,
    maxLineBytes: 0,
    eventTypes: {},
    scenarios: {},
    seconds: 0,
  };
}

export function generateSyntheticTrace(options: GenerateOptions): GenerateStats {
  const started = performance.now();
  const rng = new Prng(options.seed);
  const stats = emptyStats(GENERATOR_VERSION, options);
  writeGeneratedTrace(options.outPath, stats, options.onProgress, (emit) => {
    const newRun = (): Generator<string> => runLines({ rng: new Prng(rng.next() * 2 ** 32), index: stats.runs++, stats });
    const active: Generator<string>[] = [];
    for (let i = 0; i < ACTIVE_RUNS; i++) active.push(newRun());
    let current = 0;
    while (active.length > 0) {
      if (active.length > 1 && rng.chance(SWITCH_PROBABILITY)) current = rng.int(0, active.length - 1);
      const run = active[current];
      if (!run) throw new Error('internal: no active run');
      const next = run.next();
      if (next.done) {
        if (stats.bytes < options.targetBytes) active[current] = newRun();
        else active.splice(current, 1);
        current = active.length > 0 ? rng.int(0, active.length - 1) : 0;
        continue;
      }
      const line = next.value;
      emit(line);
      stats.events++;
      const type = line.slice(9, line.indexOf('"', 9));
      stats.eventTypes[type] = (stats.eventTypes[type] ?? 0) + 1;
      if (rng.next() < line.length / GARBAGE_EVERY_BYTES) {
        emit(rng.pick(garbageLines)(rng));
        stats.garbageLines++;
      }
    }
  });
  stats.seconds = (performance.now() - started) / 1000;
  return stats;
}

/** `200MB`, `1GB`, `512KB`, `1.5GB`, or a plain byte count. Units are binary (1 MB = 2^20 bytes). */
export function parseSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b?|b)?\s*$/i.exec(text);
  if (!match?.[1]) throw new Error(`invalid size: ${text} (expected e.g. 200MB, 1GB)`);
  const unit = (match[2] ?? 'b').toLowerCase().charAt(0);
  const factor = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  return Math.round(Number(match[1]) * factor);
}
