/**
 * HTTP exchange threads closed while the file is read (semantics §8): beyond the 256 most recently
 * continued threads, a closed thread that nothing can reach any more has its end derived at once —
 * the same verdict it gets at the end of the file — while a closed thread that something can still
 * reach (a call awaiting its result, a response a later request names) is left to the end. Read by
 * the real engine into a real SQLite file.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openTrace, readReport } from '../../../../src-main/engine/engine';
import { defaultAnalysis, temporaryDir } from '../../../support/engineHarness';

const CONVERSATIONS = 800;
/** After how many more conversations the Responses chain goes on: its thread is closed by then (256 newer ones went on), its response id still remembered (the last 1,024). */
const CHAIN_GOES_ON_AFTER = 300;

function line(url: string, at: number, body: unknown, response: unknown): string {
  return JSON.stringify({
    request: { timestamp: at, method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
    response: { timestamp: at + 0.5, status_code: 200, headers: { 'content-type': 'application/json' }, body: response },
  });
}

const chatUrl = 'https://api.openai.com/v1/chat/completions';
const responsesUrl = 'https://api.openai.com/v1/responses';
const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }];
const usage = { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 };

function chatAnswer(id: string, message: Record<string, unknown>, finishReason: string): unknown {
  return { id, object: 'chat.completion', model: 'gpt-4.1-mini', choices: [{ index: 0, message, finish_reason: finishReason }], usage };
}

/** A conversation of two requests: a call, then its result and a final answer — or, `unanswered`, a second call no request ever answers. */
function chatConversation(n: number, at: number, unanswered: boolean): string[] {
  const task = { role: 'user', content: `Conversation ${n}: look up record ${n}.` };
  const call = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `call_${n}_a`, type: 'function', function: { name: 'lookup', arguments: `{"id":${n}}` } }],
  };
  const history = [{ role: 'system', content: `Agent ${n}` }, task];
  const second = unanswered
    ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}_b`, type: 'function', function: { name: 'lookup', arguments: `{"id":${n + 1}}` } }] }
    : { role: 'assistant', content: `Record ${n} is fine.` };
  return [
    line(chatUrl, at, { model: 'gpt-4.1-mini', messages: history, tools }, chatAnswer(`chatcmpl-${n}-1`, call, 'tool_calls')),
    line(
      chatUrl,
      at + 1,
      { model: 'gpt-4.1-mini', messages: [...history, call, { role: 'tool', tool_call_id: `call_${n}_a`, content: `record ${n}` }], tools },
      chatAnswer(`chatcmpl-${n}-2`, second, unanswered ? 'tool_calls' : 'stop'),
    ),
  ];
}

function responsesExchange(at: number, body: Record<string, unknown>, id: string, output: unknown[]): string {
  const response = { id, object: 'response', status: 'completed', model: 'gpt-4.1', output, usage: { input_tokens: 30, output_tokens: 8, total_tokens: 38 } };
  return line(
    responsesUrl,
    at,
    { model: 'gpt-4.1', instructions: 'You research.', tools: [{ type: 'function', name: 'search', parameters: { type: 'object' } }], ...body },
    response,
  );
}

/**
 * One conversation after another, so each closes once 256 newer ones went on, and its response
 * ids are forgotten once 1,024 newer responses came: conversation 1 is left waiting on a call;
 * conversation 2 is a Responses chain whose second request, naming the first response, comes
 * after CHAIN_GOES_ON_AFTER more conversations. Returns the text and that request's line.
 */
function closingTrace(): { text: string; chainLine: number } {
  const lines: string[] = [];
  let chainLine = 0;
  for (let n = 0; n < CONVERSATIONS; n++) {
    const at = 1750000000 + n * 10;
    if (n === 2) {
      const answer = {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Found it.', annotations: [] }],
      };
      lines.push(responsesExchange(at, { input: 'Find the paper.' }, 'resp_first', [answer]));
    } else {
      lines.push(...chatConversation(n, at, n === 1));
    }
    if (n === 2 + CHAIN_GOES_ON_AFTER) {
      const answer = {
        type: 'message',
        id: 'msg_2',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Here it is.', annotations: [] }],
      };
      const input = [{ role: 'user', content: 'And its author?' }];
      lines.push(responsesExchange(at + 5, { previous_response_id: 'resp_first', input }, 'resp_second', [answer]));
      chainLine = lines.length;
    }
  }
  return { text: `${lines.join('\n')}\n`, chainLine };
}

describe('http-exchange: threads closed while the file is read', { timeout: 120_000 }, () => {
  const dir = temporaryDir('exchange-closing');
  after(() => dir.remove());

  it('end as they would at the end of the file, unless something can still reach them', async () => {
    const tracePath = join(dir.path, 'closing.jsonl');
    const { text, chainLine } = closingTrace();
    writeFileSync(tracePath, text);
    const trace = await openTrace(tracePath, { cacheDir: join(dir.path, 'cache'), analysis: defaultAnalysis });
    const db = new Database(trace.dbPath, { readonly: true });
    try {
      const report = readReport(trace, defaultAnalysis);
      assert.equal(report.runs.length, CONVERSATIONS);
      const byFirstLine = new Map(report.runs.map((run) => [run.first_line, run]));
      const responses = byFirstLine.get(5)!;
      assert.deepEqual(
        {
          status: responses.status,
          steps: responses.steps,
          tool_calls: responses.tool_calls,
          tool_results: responses.tool_results,
          last_line: responses.last_line,
        },
        { status: 'model_finished', steps: 2, tool_calls: 0, tool_results: 0, last_line: chainLine },
        'the Responses chain closed long before its continuation, and was continued',
      );
      // Its end was derived from its last response, the continuation's, not when it closed after its first.
      const chainEnd = db
        .prepare<[string], { line: number }>("SELECT e.line FROM events e JOIN runs r ON r.id = e.run_pk WHERE r.run_id = ? AND e.type = 'run_end'")
        .all(responses.run_id);
      assert.deepEqual(chainEnd, [{ line: chainLine }]);
      const waiting = byFirstLine.get(3)!;
      assert.equal(waiting.status, 'unterminated', 'a thread whose last call awaits its result does not end');
      assert.deepEqual(
        report.findings
          .filter((finding) => finding.run_id === waiting.run_id)
          .map((finding) => finding.kind)
          .sort(),
        ['dangling_call', 'unterminated_run'],
        'the waiting thread keeps its verdicts however many threads closed after it',
      );
      const others = report.runs.filter((run) => run !== responses && run !== waiting);
      assert.equal(others.length, CONVERSATIONS - 2);
      for (const run of others) {
        assert.deepEqual(
          { status: run.status, steps: run.steps, tool_calls: run.tool_calls, tool_results: run.tool_results },
          { status: 'model_finished', steps: 2, tool_calls: 1, tool_results: 1 },
          `the conversation on lines ${run.first_line}-${run.last_line}`,
        );
      }
      assert.deepEqual(
        report.findings.filter((finding) => finding.run_id !== waiting.run_id),
        [],
        'no other thread is flagged',
      );

      // Each run ended once; the conversations closed while the file was read ended then, the
      // Responses chain (reachable by its response id) and the 256 still open at the end, at the end.
      const ends = db
        .prepare<[], { run_pk: number; type_raw: string; n: number }>(
          "SELECT run_pk, type_raw, COUNT(*) AS n FROM events WHERE type = 'run_end' GROUP BY run_pk",
        )
        .all();
      assert.ok(ends.every((end) => end.n === 1));
      const closedEarly = ends.filter((end) => end.type_raw === 'derived when the thread closed').length;
      const atEnd = ends.filter((end) => end.type_raw === 'derived at end of file').length;
      assert.equal(closedEarly + atEnd, CONVERSATIONS - 1, 'every thread but the waiting one ended');
      // Still reachable at the end: the 256 threads open, and those whose response ids are among the last 1,024.
      assert.ok(closedEarly >= CONVERSATIONS - 256 - 1024 / 2 - 2, `ended while the file was read: ${closedEarly}`);
    } finally {
      db.close();
      await trace.stop();
    }
  });
});
