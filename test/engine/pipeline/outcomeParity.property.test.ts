/**
 * The same exchange gets the same verdict whatever logged it (docs/semantics.md §1): random runs —
 * final answers, tool calls run or not, calls cut by the token limit, refusals that came with a
 * call, dropped calls, unknown finish reasons, content filters, streams that broke — are written
 * twice, as an HTTP exchange log (OpenAI Chat Completions or Anthropic Messages, see
 * docs/formats/http-exchange.md) and as canonical JSONL without a logged `outcome`, ingested both
 * through the real engine, and must give the same runs and the same findings (kind, severity,
 * step, call_id).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { AnalyzeReport } from '../../../shared/report';
import { analyzeFile, temporaryDir } from '../../support/engineHarness';

type Api = 'chat' | 'anthropic';

/** What one model call returned, in terms of the exchange, not of Loopscope's verdict on it. */
type StepKind = 'final' | 'calls' | 'cut_call' | 'cut_text' | 'refusal_with_call' | 'dropped_call' | 'unknown_reason' | 'filtered' | 'broken_stream';

interface StepSpec {
  kind: StepKind;
  /** Calls the response carries (some kinds carry none). */
  callCount: number;
  /** Whether the loop ran the calls and sent their results with the next request. */
  executed: boolean;
}

const MODEL = 'test-model';
const SYSTEM = 'You are a test assistant.';
const TOOL = { name: 'lookup', description: 'Look a key up.', schema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } };

const stepKinds: Record<Api, readonly StepKind[]> = {
  chat: ['final', 'calls', 'cut_call', 'cut_text', 'refusal_with_call', 'dropped_call', 'unknown_reason', 'filtered', 'broken_stream'],
  // Anthropic has no refusal text beside a call nor a content filter; its streams are left to the stream tests.
  anthropic: ['final', 'calls', 'cut_call', 'cut_text', 'refusal_with_call', 'dropped_call', 'unknown_reason'],
};

const runSpec = fc.constantFrom<Api>('chat', 'anthropic').chain((api) =>
  fc.record({
    api: fc.constant(api),
    steps: fc.array(fc.record({ kind: fc.constantFrom(...stepKinds[api]), callCount: fc.integer({ min: 1, max: 2 }), executed: fc.boolean() }), {
      minLength: 1,
      maxLength: 4,
    }),
  }),
);

interface Call {
  id: string;
  /** The arguments as the provider sent them: a JSON string (Chat) or an object (Anthropic). */
  args: unknown;
}

interface Response {
  text: string | null;
  calls: Call[];
  finishReason: string | null;
  refusal: string | null;
  broken: boolean;
}

function responseOf(api: Api, spec: StepSpec, step: number): Response {
  const calls = (count: number, cut: boolean): Call[] =>
    Array.from({ length: count }, (_, index) => {
      const key = `k${step}${index}`;
      // A cut call's arguments stop mid-string in Chat; Anthropic sends an object even when cut.
      return { id: `call_s${step}c${index}`, args: api === 'chat' ? (cut ? `{"key":"${key}` : `{"key":"${key}"}`) : { key } };
    });
  const toolFinish = api === 'chat' ? 'tool_calls' : 'tool_use';
  const stop = api === 'chat' ? 'stop' : 'end_turn';
  const truncation = api === 'chat' ? 'length' : 'max_tokens';
  const plain = { refusal: null, broken: false };
  switch (spec.kind) {
    case 'final':
      return { ...plain, text: `The answer of step ${step} is 42.`, calls: [], finishReason: stop };
    case 'calls':
      return { ...plain, text: null, calls: calls(spec.callCount, false), finishReason: toolFinish };
    case 'cut_call':
      return { ...plain, text: null, calls: calls(1, true), finishReason: truncation };
    case 'cut_text':
      return { ...plain, text: `The answer of step ${step} starts here and then it`, calls: [], finishReason: truncation };
    case 'refusal_with_call':
      return api === 'chat'
        ? { text: null, calls: calls(1, false), finishReason: 'stop', refusal: 'I will not do that.', broken: false }
        : { ...plain, text: 'I will not do that.', calls: calls(1, false), finishReason: 'refusal' };
    case 'dropped_call':
      return { ...plain, text: 'Let me look that up.', calls: [], finishReason: toolFinish };
    case 'unknown_reason':
      return { ...plain, text: `Step ${step} says something.`, calls: calls(spec.callCount - 1, false), finishReason: 'weird_gateway_reason' };
    case 'filtered':
      return { ...plain, text: 'The answer is', calls: [], finishReason: 'content_filter' };
    case 'broken_stream':
      return { text: 'Partial', calls: calls(1, true), finishReason: null, refusal: null, broken: true };
  }
}

/** What the loop would end the run with, by what the last step is meant to be; an HTTP log never says, so it is derived there. */
function endStatus(last: StepSpec): string | null {
  if (last.kind === 'final') return 'model_finished';
  if (last.kind === 'refusal_with_call') return 'refused';
  return null;
}

/** The assistant message the loop appends for a response, in the API's shape. */
function assistantMessage(api: Api, response: Response): unknown {
  if (api === 'anthropic') {
    const content = [
      ...(response.text !== null ? [{ type: 'text', text: response.text }] : []),
      ...response.calls.map((call) => ({ type: 'tool_use', id: call.id, name: TOOL.name, input: call.args })),
    ];
    return { role: 'assistant', content };
  }
  return {
    role: 'assistant',
    content: response.text,
    ...(response.calls.length > 0
      ? { tool_calls: response.calls.map((call) => ({ id: call.id, type: 'function', function: { name: TOOL.name, arguments: call.args } })) }
      : {}),
  };
}

function resultMessages(api: Api, calls: Call[]): unknown[] {
  if (calls.length === 0) return [];
  if (api === 'anthropic')
    return [{ role: 'user', content: calls.map((call) => ({ type: 'tool_result', tool_use_id: call.id, content: `value of ${call.id}` })) }];
  return calls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: `value of ${call.id}` }));
}

function responseBody(api: Api, response: Response, step: number): { body?: unknown; body_raw?: string } {
  if (api === 'anthropic') {
    return {
      body: {
        id: `msg_${step}`,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: (assistantMessage(api, response) as { content: unknown }).content,
        stop_reason: response.finishReason,
      },
    };
  }
  if (response.broken) {
    // A Chat stream cut before any finish_reason (and before [DONE]).
    const chunk = (delta: unknown): string =>
      `data: ${JSON.stringify({ id: `chatcmpl-${step}`, object: 'chat.completion.chunk', model: MODEL, choices: [{ index: 0, delta }] })}\n\n`;
    const call = response.calls[0]!;
    const args = call.args as string;
    return {
      body_raw: [
        chunk({ role: 'assistant', content: response.text }),
        chunk({ tool_calls: [{ index: 0, id: call.id, type: 'function', function: { name: TOOL.name, arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 4) } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(4) } }] }),
      ].join(''),
    };
  }
  const message = { ...(assistantMessage(api, response) as object), ...(response.refusal !== null ? { refusal: response.refusal } : {}) };
  return { body: { id: `chatcmpl-${step}`, object: 'chat.completion', model: MODEL, choices: [{ index: 0, message, finish_reason: response.finishReason }] } };
}

/** The run written both ways: the lines of an HTTP exchange log and of a canonical trace. */
function writeBoth(spec: { api: Api; steps: StepSpec[] }): { http: string[]; canonical: string[] } {
  const { api } = spec;
  const http: string[] = [];
  const canonical: string[] = [];
  const event = (value: Record<string, unknown>): void => {
    canonical.push(JSON.stringify({ run_id: 'thread-1', ...value }));
  };
  const tools =
    api === 'chat'
      ? [{ type: 'function', function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } }]
      : [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.schema }];
  let history: unknown[] =
    api === 'chat'
      ? [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: 'Start.' },
        ]
      : [{ role: 'user', content: 'Start.' }];
  let executedBefore: { calls: Call[]; step: number } = { calls: [], step: 0 };
  spec.steps.forEach((stepSpec, index) => {
    const step = index + 1;
    const last = index === spec.steps.length - 1;
    const response = responseOf(api, stepSpec, step);
    const ts = 1_750_000_000 + step * 10;
    const body = { model: MODEL, max_tokens: 1024, ...(api === 'anthropic' ? { system: SYSTEM } : {}), messages: history, tools };
    const url = api === 'chat' ? 'https://api.openai.com/v1/chat/completions' : 'https://api.anthropic.com/v1/messages';
    http.push(
      JSON.stringify({
        request: { timestamp: ts, method: 'POST', url, body },
        response: { timestamp: ts + 1, status_code: 200, ...responseBody(api, response, step) },
      }),
    );

    // Canonical: the results this request carries, the request, then the response.
    for (const call of executedBefore.calls) {
      event({ type: 'tool_result', step: executedBefore.step, call_id: call.id, name: TOOL.name, status: 'ok', output: `value of ${call.id}` });
    }
    event({
      type: 'model_request',
      step,
      model: MODEL,
      provider: api === 'chat' ? 'openai' : 'anthropic',
      ...(api === 'anthropic' ? { system: SYSTEM } : {}),
      messages: history,
      tools,
      params: { model: MODEL, max_tokens: 1024 },
    });
    if (response.broken) {
      if (response.text !== null) event({ type: 'stream_fragment', step, text_delta: response.text });
      for (const [callIndex, call] of response.calls.entries()) {
        const args = call.args as string;
        event({ type: 'stream_fragment', step, index: callIndex, call_id: call.id, name: TOOL.name, arguments_delta: '' });
        event({ type: 'stream_fragment', step, index: callIndex, arguments_delta: args.slice(0, 4) });
        event({ type: 'stream_fragment', step, index: callIndex, arguments_delta: args.slice(4) });
      }
    } else {
      event({
        type: 'model_response',
        step,
        text: response.text,
        tool_calls: response.calls.map((call) => ({ call_id: call.id, name: TOOL.name, arguments: call.args })),
        finish_reason: response.finishReason,
        ...(response.refusal !== null ? { refusal: response.refusal } : {}),
        model: MODEL,
      });
    }

    // The next request's history: the assistant message, and the results of the calls the loop ran
    // (a call of the last step is never run: no later request would show its result).
    const ran = stepSpec.executed && !last ? response.calls : [];
    history = [
      ...history,
      assistantMessage(api, response),
      ...resultMessages(api, ran),
      ...(ran.length === 0 ? [{ role: 'user', content: `Go on after step ${step}.` }] : []),
    ];
    executedBefore = { calls: ran, step };
  });
  const status = endStatus(spec.steps.at(-1)!);
  if (status !== null) event({ type: 'run_end', step: spec.steps.length, status });
  return { http, canonical };
}

function verdicts(report: AnalyzeReport): { runs: string[]; findings: string[] } {
  return {
    runs: report.runs.map((run) => `${run.run_id} ${run.status} steps=${run.steps} calls=${run.tool_calls} results=${run.tool_results}`),
    findings: report.findings.map((f) => `${f.run_id} ${f.kind} ${f.severity} step=${f.step} call=${f.call_id}`).sort(),
  };
}

describe('outcome parity between an HTTP exchange log and canonical JSONL', () => {
  const dir = temporaryDir('outcome-parity');
  after(() => dir.remove());

  it('gives the same runs and findings for the same exchanges', async () => {
    let sample = 0;
    await fc.assert(
      fc.asyncProperty(runSpec, async (spec) => {
        sample += 1;
        const { http, canonical } = writeBoth(spec);
        const httpFile = join(dir.path, `run-${sample}.http.jsonl`);
        const canonicalFile = join(dir.path, `run-${sample}.canonical.jsonl`);
        writeFileSync(httpFile, `${http.join('\n')}\n`);
        writeFileSync(canonicalFile, `${canonical.join('\n')}\n`);
        const fromHttp = await analyzeFile(httpFile, { format: 'http-exchange' });
        const fromCanonical = await analyzeFile(canonicalFile, { format: 'loopscope' });
        assert.deepEqual(verdicts(fromCanonical.report), verdicts(fromHttp.report));
      }),
      {
        numRuns: 10,
        // The cases of docs/semantics.md §1 first: a cut call run anyway, then a retry to an answer;
        // a refusal with a call; a broken stream whose cut call was run.
        examples: [
          [
            {
              api: 'chat',
              steps: [
                { kind: 'cut_call', callCount: 1, executed: true },
                { kind: 'final', callCount: 1, executed: false },
              ],
            },
          ],
          [
            {
              api: 'anthropic',
              steps: [
                { kind: 'calls', callCount: 2, executed: true },
                { kind: 'refusal_with_call', callCount: 1, executed: false },
              ],
            },
          ],
          [
            {
              api: 'chat',
              steps: [
                { kind: 'broken_stream', callCount: 1, executed: true },
                { kind: 'cut_text', callCount: 1, executed: false },
              ],
            },
          ],
        ],
      },
    );
  });
});
