/**
 * Deterministic synthetic HTTP exchange log (docs/formats/http-exchange.md, the claude-trace
 * shape) for benchmarks: the worst case for a trace viewer, since every request resends the whole
 * history, so the file grows with the square of a session's length.
 *
 * Sessions of an agent calling Anthropic Messages one after another: each turn's request carries
 * the system prompt, the tools and every earlier message; the response is a JSON body with usage
 * (cache reads included) and 1–3 tool_use blocks, or the final text. Between turns, side calls a
 * harness makes (a one-token quota check, a title) go out with their own one-message history.
 * Written to a file by `npx tsx scripts/generate-exchange-trace.ts`.
 */
import { writeGeneratedTrace } from './generatedTraceFile';
import { Prng } from './prng';
import { emptyStats, type GenerateStats } from './syntheticTrace';
import { paragraph, sentence, systemPrompt, task, toolArguments, toolOutput, toolSpecs, type ToolName } from './vocabulary';

/** Bump when the output for a given (size, seed) changes, so cached files are regenerated. */
export const EXCHANGE_GENERATOR_VERSION = 1;

const toolNames: readonly ToolName[] = ['read_file', 'list_dir', 'search_code', 'run_tests', 'http_get', 'write_file'];
const tools = toolSpecs.map((spec) => ({ name: spec.name, description: spec.description, input_schema: { type: 'object', properties: spec.properties } }));
const system = [{ type: 'text', text: systemPrompt, cache_control: { type: 'ephemeral' } }];
/** Rough tokens of a JSON text: what the usage figures are made of. */
const tokensOf = (chars: number): number => Math.ceil(chars / 3.6);

interface Exchange {
  requestAt: number;
  body: Record<string, unknown>;
  response: Record<string, unknown>;
}

function line(exchange: Exchange): string {
  return JSON.stringify({
    request: {
      timestamp: exchange.requestAt / 1000,
      method: 'POST',
      url: 'https://api.anthropic.com/v1/messages?beta=true',
      headers: { 'content-type': 'application/json' },
      body: exchange.body,
    },
    response: { timestamp: exchange.requestAt / 1000 + 1.5, status_code: 200, headers: { 'content-type': 'application/json' }, body: exchange.response },
    logged_at: new Date(exchange.requestAt + 1500).toISOString(),
  });
}

/** One agent session: its main-loop exchanges and the side calls between them, in order. */
function* session(rng: Prng, index: number, clockStart: number): Generator<string> {
  let clock = clockStart;
  const turns = rng.int(20, 70);
  const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: `${task(rng)}\n\n${paragraph(rng, rng.int(1, 3))}` }] }];
  let cached = 0;
  for (let turn = 1; turn <= turns; turn++) {
    clock += rng.int(800, 6000);
    if (rng.chance(0.3)) {
      yield line({
        requestAt: clock,
        body: { model: 'claude-3-5-haiku-20241022', max_tokens: 1, messages: [{ role: 'user', content: 'quota' }] },
        response: {
          id: `msg_q${index}_${turn}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-3-5-haiku-20241022',
          content: [{ type: 'text', text: 'I' }],
          stop_reason: 'max_tokens',
          usage: { input_tokens: 8, output_tokens: 1 },
        },
      });
    }
    const body = {
      model: 'claude-sonnet-4-20250514',
      max_tokens: 32000,
      temperature: 1,
      system,
      tools,
      messages,
      metadata: { user_id: `user_session_${index}` },
    };
    const requestText = JSON.stringify(body);
    const input = tokensOf(requestText.length);
    const final = turn === turns;
    const calls = final
      ? []
      : Array.from(
          {
            length: rng.weighted([
              [1, 70],
              [2, 20],
              [3, 10],
            ] as const),
          },
          () => {
            const name = rng.pick(toolNames);
            return { type: 'tool_use', id: `toolu_${rng.hex(24)}`, name, input: toolArguments(rng, name) };
          },
        );
    const content = final ? [{ type: 'text', text: paragraph(rng, rng.int(2, 5)) }] : [{ type: 'text', text: sentence(rng) }, ...calls];
    yield line({
      requestAt: clock,
      body,
      response: {
        id: `msg_${index}_${turn}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-20250514',
        content,
        stop_reason: final ? 'end_turn' : 'tool_use',
        usage: {
          input_tokens: Math.max(1, input - cached),
          cache_read_input_tokens: cached,
          cache_creation_input_tokens: 0,
          output_tokens: tokensOf(JSON.stringify(content).length),
        },
      },
    });
    cached = input;
    if (final) return;
    messages.push({ role: 'assistant', content });
    messages.push({
      role: 'user',
      content: calls.map((call) => {
        // Mostly a few KB; now and then a 40 KB result, the kind of turn the growth chart names.
        const size = rng.chance(0.03) ? 40_000 : rng.int(300, 6000);
        const output = toolOutput(rng, call.name as ToolName, size);
        return { type: 'tool_result', tool_use_id: call.id, content: typeof output === 'string' ? output : JSON.stringify(output) };
      }),
    });
  }
}

export function generateExchangeTrace(options: { targetBytes: number; seed: number; outPath: string; onProgress?: (bytes: number) => void }): GenerateStats {
  const started = performance.now();
  const rng = new Prng(options.seed);
  const stats = emptyStats(EXCHANGE_GENERATOR_VERSION, options);
  writeGeneratedTrace(options.outPath, stats, options.onProgress, (emit) => {
    let clock = Date.UTC(2025, 5, 1);
    while (stats.bytes < options.targetBytes) {
      for (const text of session(new Prng(rng.next() * 2 ** 32), stats.runs++, clock)) {
        emit(text);
        stats.events += 1;
        if (stats.bytes >= options.targetBytes) break;
      }
      clock += 3_600_000;
    }
  });
  stats.seconds = (performance.now() - started) / 1000;
  return stats;
}
