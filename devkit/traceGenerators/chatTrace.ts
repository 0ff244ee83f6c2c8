/**
 * Deterministic OpenAI Chat Completions exchange log (docs/formats/http-exchange.md) for
 * benchmarks: many short conversations, the shape a proxy in front of a chat assistant records.
 *
 * Each conversation is about twenty `POST /v1/chat/completions` requests; every request resends the
 * conversation's whole history (system, user, assistant `tool_calls`, `tool` results, assistant
 * answers and the user's next question) with the same two tools, so lines run from about 5 KB to
 * 15 KB. Responses are JSON `chat.completion` bodies: `choices[0].message.tool_calls` (one call,
 * sometimes two in parallel) or a text answer, with `usage` (cached prompt tokens included).
 *
 * Conversations are interleaved, a dozen at a time, in the order their requests were sent: a proxy
 * serves several users at once and logs each exchange as it happens, so consecutive lines rarely
 * belong to the same conversation (which is also what makes matching a request to its
 * conversation real work). Once the target size is reached the open conversations run to their
 * end, so every conversation in the file is whole. Only the open conversations' histories are in
 * memory. Written to a file by `npx tsx scripts/generate-chat-trace.ts`.
 */
import { writeGeneratedTrace } from './generatedTraceFile';
import { Prng } from './prng';
import { emptyStats, type GenerateStats } from './syntheticTrace';
import { paragraph, sentence, systemPrompt, task, toolArguments, toolOutput, toolSpecs, type ToolName } from './vocabulary';

/** Bump when the output for a given (size, seed) changes, so cached files are regenerated. */
export const CHAT_GENERATOR_VERSION = 1;

/** Conversations in progress at any time: well under the 256 threads the engine keeps open. */
const OPEN_CONVERSATIONS = 12;
const MODEL = 'gpt-4o-mini';
const RESPONSE_MODEL = 'gpt-4o-mini-2024-07-18';
const toolNames: readonly ToolName[] = ['read_file', 'search_code'];
const tools = toolSpecs
  .filter((spec) => toolNames.includes(spec.name as ToolName))
  .map((spec) => ({
    type: 'function',
    function: {
      name: spec.name,
      description: spec.description,
      parameters: { type: 'object', properties: spec.properties, required: Object.keys(spec.properties).slice(0, 1), additionalProperties: false },
    },
  }));
/** The assistant's long system prompt (the same for every conversation, as one deployment's is). */
const system = `${systemPrompt}\n\nProject conventions:\n${paragraph(new Prng('chat-system-prompt'), 28)}`;
/** Rough tokens of a JSON text: what the usage figures are made of. */
const tokensOf = (chars: number): number => Math.ceil(chars / 3.8);
const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function alphanumeric(rng: Prng, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC.charAt(rng.int(0, ALPHANUMERIC.length - 1));
  return out;
}

/** One exchange line, with the time its request was sent (the order the log is written in). */
interface Exchange {
  at: number;
  line: string;
}

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

function exchangeLine(requestAt: number, latencyMs: number, body: unknown, response: unknown): string {
  const respondedAt = requestAt + latencyMs;
  return JSON.stringify({
    request: {
      timestamp: requestAt / 1000,
      method: 'POST',
      url: 'https://api.openai.com/v1/chat/completions',
      headers: { 'content-type': 'application/json', 'user-agent': 'OpenAI/Python 1.82.0' },
      body,
    },
    response: {
      timestamp: respondedAt / 1000,
      status_code: 200,
      headers: { 'content-type': 'application/json', 'openai-processing-ms': String(latencyMs) },
      body: response,
    },
    logged_at: new Date(respondedAt).toISOString(),
  });
}

function toolCalls(rng: Prng): ToolCall[] {
  const count = rng.chance(0.1) ? 2 : 1;
  return Array.from({ length: count }, () => {
    const name = rng.pick(toolNames);
    return { id: `call_${alphanumeric(rng, 24)}`, type: 'function', function: { name, arguments: JSON.stringify(toolArguments(rng, name)) } };
  });
}

/** The user's opening message (a task and some context) or a follow-up question. */
function userQuestion(rng: Prng, first: boolean): string {
  return first ? `${task(rng)} ${paragraph(rng, rng.int(1, 2))}` : sentence(rng, 8, 24).replace(/\.$/, '?');
}

/** One conversation's exchanges, each built when the previous one is taken (the history grows in place). */
function* conversation(rng: Prng, index: number, startAt: number): Generator<Exchange> {
  let clock = startAt;
  const requests = rng.int(17, 23);
  const messages: unknown[] = [
    { role: 'system', content: system },
    { role: 'user', content: userQuestion(rng, true) },
  ];
  let cachedTokens = 0;
  for (let request = 1; request <= requests; request++) {
    const body = { model: MODEL, messages, tools, tool_choice: 'auto', temperature: 0.2, user: `user-${index}` };
    const promptTokens = tokensOf(JSON.stringify(body).length);
    const final = request === requests;
    const calls = !final && rng.chance(0.75) ? toolCalls(rng) : [];
    const message =
      calls.length > 0
        ? { role: 'assistant', content: null, tool_calls: calls, refusal: null }
        : { role: 'assistant', content: paragraph(rng, rng.int(1, 2)), refusal: null };
    const completionTokens = tokensOf(JSON.stringify(message).length);
    const latency = rng.int(600, 3500);
    const response = {
      id: `chatcmpl-${alphanumeric(rng, 29)}`,
      object: 'chat.completion',
      created: Math.floor((clock + latency) / 1000),
      model: RESPONSE_MODEL,
      choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      system_fingerprint: 'fp_7fcd609668',
    };
    yield { at: clock, line: exchangeLine(clock, latency, body, response) };
    if (final) return;
    // The API caches whole 128-token blocks of a prompt of 1024 tokens or more.
    cachedTokens = promptTokens >= 1024 ? Math.floor(promptTokens / 128) * 128 : 0;
    clock += latency;
    if (calls.length > 0) {
      messages.push({ role: 'assistant', content: null, tool_calls: calls });
      for (const call of calls) {
        const output = toolOutput(rng, call.function.name as ToolName, rng.int(40, 220));
        messages.push({ role: 'tool', tool_call_id: call.id, content: typeof output === 'string' ? output : JSON.stringify(output) });
      }
      clock += rng.int(100, 1500);
    } else {
      messages.push({ role: 'assistant', content: message.content }, { role: 'user', content: userQuestion(rng, false) });
      clock += rng.int(8_000, 60_000);
    }
  }
}

export function generateChatTrace(options: { targetBytes: number; seed: number; outPath: string; onProgress?: (bytes: number) => void }): GenerateStats {
  const started = performance.now();
  const rng = new Prng(options.seed);
  const stats = emptyStats(CHAT_GENERATOR_VERSION, options);
  writeGeneratedTrace(options.outPath, stats, options.onProgress, (emit) => {
    const open: { exchanges: Generator<Exchange>; next: Exchange }[] = [];
    const start = (at: number): void => {
      const exchanges = conversation(new Prng(rng.next() * 2 ** 32), stats.runs, at);
      const first = exchanges.next();
      if (first.done) throw new Error('internal: a conversation without requests');
      stats.runs += 1;
      open.push({ exchanges, next: first.value });
    };
    const clockStart = Date.UTC(2025, 5, 2, 8);
    for (let i = 0; i < OPEN_CONVERSATIONS; i++) start(clockStart + rng.int(0, 60_000));
    while (open.length > 0) {
      let earliest = 0;
      for (let i = 1; i < open.length; i++) if (open[i]!.next.at < open[earliest]!.next.at) earliest = i;
      const current = open[earliest]!;
      emit(current.next.line);
      stats.events += 1;
      const following = current.exchanges.next();
      if (!following.done) {
        current.next = following.value;
        continue;
      }
      const endedAt = current.next.at;
      open.splice(earliest, 1);
      if (stats.bytes < options.targetBytes) start(endedAt + rng.int(0, 30_000));
    }
  });
  stats.seconds = (performance.now() - started) / 1000;
  return stats;
}
