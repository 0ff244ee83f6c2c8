/**
 * Small traces for the library benchmark (scripts/bench-library.ts): thousands of files of a few KB
 * to about 60 KB each, the shape of a directory where an agent harness leaves one log per session.
 * The other generators make one large file (a few runs interleaved, or a dozen conversations at
 * once, hundreds of KB at the least); these make one file of one to three runs, of about
 * `targetBytes`, starting on the day given (so that a library spans weeks):
 * - `canonical`: Loopscope's canonical events (as syntheticTrace.ts writes them), one run after
 *   another, each with a scenario the analysis finds (budget, dangling call, repeated action, …);
 * - `chat`: an OpenAI Chat Completions exchange log of one or two short conversations (as
 *   chatTrace.ts writes them), each request resending the history;
 * - `exchange`: exchangeTrace.ts's Anthropic Messages session cut at `targetBytes`, its clock moved
 *   to the day given.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generateExchangeTrace } from './exchangeTrace';
import { Prng } from './prng';
import {
  finishReasons,
  paragraph,
  providers,
  retryableErrors,
  fatalErrors,
  sentence,
  systemPrompt,
  task,
  toolArguments,
  toolOutput,
  toolSpecs,
  type ToolName,
} from './vocabulary';

/** Bump when the output for a given spec changes, so cached libraries are regenerated. */
export const LIBRARY_GENERATOR_VERSION = 1;

export type LibraryTraceKind = 'canonical' | 'chat' | 'exchange';

export interface LibraryTraceSpec {
  kind: LibraryTraceKind;
  seed: number;
  targetBytes: number;
  /** When the file's first run starts (ms since the epoch). */
  startAt: number;
  outPath: string;
}

export interface LibraryTraceStats {
  bytes: number;
  lines: number;
  runs: number;
}

type Scenario = 'normal' | 'budget_tool_calls' | 'budget_turns' | 'dangling_call' | 'repeated_action' | 'refusal' | 'truncated' | 'tool_failure' | 'crashed';

const scenarioWeights: readonly (readonly [Scenario, number])[] = [
  ['normal', 70],
  ['budget_tool_calls', 5],
  ['budget_turns', 4],
  ['dangling_call', 4],
  ['repeated_action', 5],
  ['refusal', 2],
  ['truncated', 3],
  ['tool_failure', 5],
  ['crashed', 2],
];

const toolNames: readonly ToolName[] = ['read_file', 'search_code', 'list_dir', 'run_tests', 'http_get', 'write_file'];
const openAiTools = toolSpecs.map((spec) => ({
  type: 'function',
  function: { name: spec.name, description: spec.description, parameters: { type: 'object', properties: spec.properties } },
}));

/** Roughly what a step of a canonical run costs besides its tool outputs (request head, system prompt, tools, response, starts). */
const CANONICAL_STEP_OVERHEAD = 3400;

function writeLines(outPath: string, lines: readonly string[]): Omit<LibraryTraceStats, 'runs'> {
  const text = `${lines.join('\n')}\n`;
  writeFileSync(outPath, text);
  return { bytes: Buffer.byteLength(text), lines: lines.length };
}

/** One canonical run of about `budgetBytes`; its lines are pushed to `out`. Returns when it ended (ms). */
function canonicalRun(rng: Prng, runId: string, startAt: number, budgetBytes: number, out: string[]): number {
  const { provider, model, style } = rng.pick(providers);
  const scenario = rng.weighted(scenarioWeights);
  const fr = finishReasons[style];
  const budgets = { max_turns: rng.pick([6, 8, 12]), max_tool_calls: rng.pick([10, 16, 24]) };
  let planned = Math.max(1, Math.min(budgets.max_turns, Math.round(budgetBytes / (CANONICAL_STEP_OVERHEAD + 2500)) + rng.int(-1, 1)));
  if (scenario === 'budget_turns') planned = budgets.max_turns;
  if (scenario === 'budget_tool_calls') {
    budgets.max_tool_calls = rng.int(2, 4);
    planned = budgets.max_turns;
  }
  if (scenario === 'repeated_action') planned = Math.max(planned, 5);
  const anomalyStep = rng.int(1, Math.max(1, planned - (scenario === 'repeated_action' ? 4 : 1)));
  const outputBytes = Math.max(120, Math.min(16_000, Math.round(budgetBytes / planned - CANONICAL_STEP_OVERHEAD)));
  let clock = startAt;
  const ts = (advanceMs: number): string => new Date((clock += advanceMs)).toISOString();
  const userTask = task(rng);
  const newCallId = (): string => (style === 'anthropic' ? `toolu_${rng.hex(24)}` : `call_${rng.hex(24)}`);
  const line = (event: Record<string, unknown>): void => {
    out.push(JSON.stringify(event));
  };
  let toolCalls = 0;
  let repeated: { name: ToolName; args: Record<string, unknown> } | undefined;
  /** The history every request resends: the task, then each turn's calls and short results (a library's files stay small). */
  const history: unknown[] = [{ role: 'user', content: `${userTask}\n\n${paragraph(rng, rng.int(1, 3))}` }];
  const end = (step: number, fields: Record<string, unknown>): void =>
    line({ type: 'run_end', run_id: runId, step, ts: ts(rng.int(5, 200)), steps: step, tool_calls: toolCalls, ...fields });

  line({ type: 'run_start', run_id: runId, ts: ts(0), config: { provider, model, versions: { loop: '2.3.1' }, budgets }, task: userTask });
  for (let step = 1; ; step++) {
    if (scenario === 'crashed' && step > anomalyStep) return clock; // killed: no terminal event
    line({
      type: 'model_request',
      run_id: runId,
      step,
      ts: ts(rng.int(2, 60)),
      provider,
      model,
      params: { temperature: 0.2, tool_choice: 'auto' },
      system: systemPrompt,
      tools: openAiTools,
      messages: history,
    });
    type Kind = 'final' | 'tools' | 'refusal' | 'length';
    let kind: Kind = step >= planned && scenario !== 'budget_turns' && scenario !== 'budget_tool_calls' ? 'final' : 'tools';
    if (scenario === 'refusal' && step === anomalyStep) kind = 'refusal';
    if (scenario === 'truncated' && step === anomalyStep) kind = 'length';
    const calls: { call_id: string; name: ToolName; args: Record<string, unknown> }[] = [];
    if (kind === 'tools') {
      if (scenario === 'repeated_action' && step >= anomalyStep && step < anomalyStep + 4) {
        repeated ??= { name: 'search_code', args: toolArguments(rng, 'search_code') };
        calls.push({ call_id: newCallId(), ...repeated });
      } else {
        const n = rng.weighted([
          [1, 65],
          [2, 25],
          [3, 10],
        ] as const);
        for (let i = 0; i < n; i++) {
          const name = rng.pick(toolNames);
          calls.push({ call_id: newCallId(), name, args: toolArguments(rng, name) });
        }
      }
    }
    const text = kind === 'final' ? paragraph(rng, rng.int(2, 5)) : kind === 'length' ? paragraph(rng, rng.int(4, 8)).slice(0, -7) : sentence(rng);
    const finishReason = kind === 'final' ? fr.stop : kind === 'tools' ? fr.tools : kind === 'length' ? fr.length : fr.refusal;
    line({
      type: 'model_response',
      run_id: runId,
      step,
      ts: ts(rng.int(400, 9000)),
      response_id: style === 'anthropic' ? `msg_${rng.hex(24)}` : `chatcmpl-${rng.hex(24)}`,
      model,
      outcome: kind === 'final' ? 'final' : kind === 'tools' ? 'tool_calls' : kind === 'refusal' ? 'refusal' : 'incomplete',
      text: kind === 'refusal' ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls.map((c) => ({ call_id: c.call_id, name: c.name, arguments: JSON.stringify(c.args) })) } : {}),
      ...(kind === 'refusal' ? { refusal: 'I can’t help with modifying credentials stored in this repository.' } : {}),
      ...(kind === 'length' ? { incomplete_reason: 'max_output_tokens' } : {}),
      finish_reason: finishReason,
      usage: { input_tokens: 900 + step * rng.int(400, 1600), output_tokens: Math.round(text.length / 4) + rng.int(5, 80) },
      latency_ms: rng.int(350, 12_000),
    });
    if (kind === 'final') {
      end(step, { status: 'MODEL_FINISHED', output: text.slice(0, 200) });
      return clock;
    }
    if (kind === 'refusal') {
      end(step, { status: 'refused', reason: 'model refused' });
      return clock;
    }
    if (kind === 'length') {
      end(step, { status: 'failed', reason: 'model output truncated (finish_reason=length)' });
      return clock;
    }
    const allowed = Math.max(0, Math.min(calls.length, budgets.max_tool_calls - toolCalls));
    const executed = calls.slice(0, allowed);
    for (const c of executed)
      line({ type: 'tool_call_start', run_id: runId, step, ts: ts(rng.int(1, 20)), call_id: c.call_id, name: c.name, arguments: c.args });
    toolCalls += executed.length;
    const dangling = scenario === 'dangling_call' && step === anomalyStep ? executed[executed.length - 1] : undefined;
    let fatal = false;
    history.push({
      role: 'assistant',
      content: text,
      tool_calls: executed.map((c) => ({ id: c.call_id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
    });
    for (const c of executed) {
      if (c === dangling) continue;
      let result: Record<string, unknown>;
      if (scenario === 'tool_failure' && step === anomalyStep && c === executed[0]) {
        result = { status: 'error', error: { ...rng.pick(fatalErrors), retryable: false } };
        fatal = true;
      } else if (rng.chance(0.04)) {
        result = { status: 'error', error: { ...rng.pick(retryableErrors), retryable: true } };
      } else {
        result = { status: 'ok', output: toolOutput(rng, c.name, Math.max(60, Math.round((outputBytes / executed.length) * (0.5 + rng.next())))) };
      }
      line({ type: 'tool_result', run_id: runId, step, ts: ts(rng.int(5, 3000)), call_id: c.call_id, name: c.name, ...result, latency_ms: rng.int(3, 3000) });
      history.push({ role: 'tool', tool_call_id: c.call_id, content: result.status === 'ok' ? `${c.name} ok` : `${c.name} failed` });
    }
    for (const c of calls.slice(allowed))
      line({ type: 'tool_call_not_executed', run_id: runId, step, ts: ts(1), call_id: c.call_id, name: c.name, reason: 'budget_exhausted' });
    if (dangling) {
      end(step, { status: 'failed', reason: 'tool worker lost' });
      return clock;
    }
    if (fatal) {
      end(step, { status: 'failed', reason: 'unrecoverable tool error' });
      return clock;
    }
    if (allowed < calls.length) {
      end(step, { status: 'BUDGET_EXCEEDED', limit: 'max_tool_calls', reason: `tool call budget exhausted (${toolCalls}/${budgets.max_tool_calls})` });
      return clock;
    }
    if (step >= budgets.max_turns) {
      end(step, { status: 'BUDGET_EXCEEDED', limit: 'max_turns', output: '' });
      return clock;
    }
  }
}

function canonicalTrace(spec: LibraryTraceSpec): LibraryTraceStats {
  const rng = new Prng(spec.seed);
  const runs = spec.targetBytes < 12_000 ? 1 : rng.int(1, 3);
  const out: string[] = [];
  let clock = spec.startAt;
  for (let i = 0; i < runs; i++) {
    const runId = `run-${spec.seed}-${i + 1}-${rng.hex(6)}`;
    clock = canonicalRun(rng, runId, clock, spec.targetBytes / runs, out) + rng.int(5_000, 3_600_000);
  }
  return { ...writeLines(spec.outPath, out), runs };
}

const CHAT_MODELS = ['gpt-4o-mini', 'gpt-4.1-mini', 'gpt-4o'] as const;

/** One Chat Completions conversation of a few requests, each resending the history; its lines pushed to `out`. */
function chatConversation(rng: Prng, index: number, startAt: number, budgetBytes: number, out: string[]): number {
  const model = rng.pick(CHAT_MODELS);
  let clock = startAt;
  const messages: unknown[] = [
    { role: 'system', content: systemPrompt },
    { role: 'user', content: `${task(rng)} ${paragraph(rng, rng.int(1, 2))}` },
  ];
  const tools = openAiTools.filter((tool) => tool.function.name === 'read_file' || tool.function.name === 'search_code');
  let written = 0;
  for (let request = 1; ; request++) {
    const body = { model, messages, tools, tool_choice: 'auto', temperature: 0.2, user: `user-${index}` };
    const bodyText = JSON.stringify(body);
    // The next request resends all of this one: stop once it would pass the budget.
    const final = written + 2 * bodyText.length + 1500 > budgetBytes || request >= 12;
    const truncated = final && rng.chance(0.08);
    const calls =
      final || !rng.chance(0.8)
        ? []
        : Array.from({ length: rng.chance(0.1) ? 2 : 1 }, () => {
            const name = rng.pick(['read_file', 'search_code'] as const);
            return { id: `call_${rng.hex(24)}`, type: 'function', function: { name, arguments: JSON.stringify(toolArguments(rng, name)) } };
          });
    const message = calls.length > 0 ? { role: 'assistant', content: null, tool_calls: calls } : { role: 'assistant', content: paragraph(rng, rng.int(1, 3)) };
    const latency = rng.int(600, 3500);
    const promptTokens = Math.ceil(bodyText.length / 3.8);
    const completionTokens = Math.ceil(JSON.stringify(message).length / 3.8);
    const text = JSON.stringify({
      request: {
        timestamp: clock / 1000,
        method: 'POST',
        url: 'https://api.openai.com/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
        body,
      },
      response: {
        timestamp: (clock + latency) / 1000,
        status_code: 200,
        headers: { 'content-type': 'application/json' },
        body: {
          id: `chatcmpl-${rng.hex(24)}`,
          object: 'chat.completion',
          created: Math.floor((clock + latency) / 1000),
          model: `${model}-2024-07-18`,
          choices: [{ index: 0, message, finish_reason: calls.length > 0 ? 'tool_calls' : truncated ? 'length' : 'stop' }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        },
      },
      logged_at: new Date(clock + latency).toISOString(),
    });
    out.push(text);
    written += text.length + 1;
    clock += latency;
    if (final) return clock;
    if (calls.length > 0) {
      messages.push({ role: 'assistant', content: null, tool_calls: calls });
      for (const call of calls) {
        const output = toolOutput(rng, call.function.name, rng.int(200, Math.max(400, Math.round(budgetBytes / 12))));
        messages.push({ role: 'tool', tool_call_id: call.id, content: typeof output === 'string' ? output : JSON.stringify(output) });
      }
      clock += rng.int(100, 1500);
    } else {
      messages.push({ role: 'assistant', content: message.content }, { role: 'user', content: sentence(rng, 8, 20).replace(/\.$/, '?') });
      clock += rng.int(8_000, 60_000);
    }
  }
}

function chatTrace(spec: LibraryTraceSpec): LibraryTraceStats {
  const rng = new Prng(spec.seed);
  const runs = spec.targetBytes < 20_000 ? 1 : rng.int(1, 2);
  const out: string[] = [];
  let clock = spec.startAt;
  for (let i = 0; i < runs; i++) clock = chatConversation(rng, spec.seed * 4 + i, clock, spec.targetBytes / runs, out) + rng.int(60_000, 7_200_000);
  return { ...writeLines(spec.outPath, out), runs };
}

/** exchangeTrace.ts's session, cut at the size, with its timestamps moved to start at `startAt`. */
function exchangeTrace(spec: LibraryTraceSpec): LibraryTraceStats {
  // The session is cut after the line that passes the size, and one line can be tens of KB (a
  // request resending a 40 KB tool result): asked for less, it lands near the size on average.
  const stats = generateExchangeTrace({ targetBytes: Math.round(spec.targetBytes * 0.6), seed: spec.seed, outPath: spec.outPath });
  const lines = readFileSync(spec.outPath, 'utf8').split('\n').filter(Boolean);
  let shiftSeconds: number | undefined;
  const moved = lines.map((text) => {
    const exchange = JSON.parse(text) as { request: { timestamp: number }; response: { timestamp: number }; logged_at: string };
    shiftSeconds ??= spec.startAt / 1000 - exchange.request.timestamp;
    exchange.request.timestamp += shiftSeconds;
    exchange.response.timestamp += shiftSeconds;
    exchange.logged_at = new Date(Date.parse(exchange.logged_at) + shiftSeconds * 1000).toISOString();
    return JSON.stringify(exchange);
  });
  return { ...writeLines(spec.outPath, moved), runs: stats.runs };
}

export function generateLibraryTrace(spec: LibraryTraceSpec): LibraryTraceStats {
  return spec.kind === 'canonical' ? canonicalTrace(spec) : spec.kind === 'chat' ? chatTrace(spec) : exchangeTrace(spec);
}
