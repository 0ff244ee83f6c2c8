/**
 * Deterministic canonical trace of ONE run with about `events` events (default 1,000,000): the
 * list the app must scroll, jump through and search without loading it. Each step is a model
 * response with one or two tool calls, their starts and their results; requests are not logged
 * (a million-event run resending its history would be terabytes), so the run stays ~150 bytes an
 * event. A rare word sits in exactly one tool result, for the search benchmark. Written to a file
 * by `npx tsx scripts/generate-long-run-trace.ts`.
 */
import { writeGeneratedTrace, type WrittenCounts } from './generatedTraceFile';
import { Prng } from './prng';

/** Bump when the output for a given (events, seed) changes, so cached files are regenerated. */
export const LONG_RUN_GENERATOR_VERSION = 1;

/** The word that occurs once in the trace (in the result of the middle step). */
export const RARE_WORD = 'xylophonequartz';

export interface LongRunStats {
  events: number;
  steps: number;
  bytes: number;
  lines: number;
  /** Step whose result holds RARE_WORD. */
  rareStep: number;
}

const tools = ['read_file', 'grep', 'run_tests', 'list_dir', 'edit_file'] as const;

export function generateLongRunTrace(options: { events: number; seed: number; outPath: string }): LongRunStats {
  const prng = new Prng(options.seed);
  const counts: WrittenCounts = { bytes: 0, lines: 0, maxLineBytes: 0 };
  const runId = 'long-run';
  const start = Date.parse('2026-01-05T09:00:00.000Z');
  const rareStep = Math.max(1, Math.floor(options.events / 12));
  let events = 0;
  let step = 0;
  let clock = start;
  const ts = (): string => new Date((clock += 7 + prng.int(0, 39))).toISOString();
  writeGeneratedTrace(options.outPath, counts, undefined, (emit) => {
    const write = (event: Record<string, unknown>): void => {
      emit(JSON.stringify(event));
      events += 1;
    };
    write({
      type: 'run_start',
      run_id: runId,
      ts: ts(),
      task: 'Keep the test suite green while refactoring the parser.',
      config: { provider: 'openai', model: 'gpt-4.1' },
    });
    while (events < options.events - 2) {
      step += 1;
      const callCount = 1 + prng.int(0, 1);
      const calls = Array.from({ length: callCount }, (_, i) => {
        const name = prng.pick(tools);
        return { call_id: `call_${step}_${i}`, name, arguments: JSON.stringify({ path: `src/module_${prng.int(0, 499)}.ts`, line: prng.int(0, 899) }) };
      });
      write({
        type: 'model_response',
        run_id: runId,
        step,
        ts: ts(),
        outcome: 'tool_calls',
        finish_reason: 'tool_calls',
        text: null,
        tool_calls: calls,
        usage: { input_tokens: 900 + step, output_tokens: 20 + prng.int(0, 59) },
      });
      for (const call of calls)
        write({ type: 'tool_call_start', run_id: runId, step, ts: ts(), call_id: call.call_id, name: call.name, arguments: call.arguments });
      for (const call of calls) {
        const word = step === rareStep ? ` ${RARE_WORD}` : '';
        write({
          type: 'tool_result',
          run_id: runId,
          step,
          ts: ts(),
          call_id: call.call_id,
          name: call.name,
          status: 'ok',
          output: `ok ${call.name} step ${step}: ${prng.int(0, 99999)} bytes checked${word}`,
        });
      }
    }
    write({ type: 'run_end', run_id: runId, ts: ts(), status: 'SUCCESS', output: 'All tests pass.' });
  });
  return { events, steps: step, bytes: counts.bytes, lines: counts.lines, rareStep };
}
