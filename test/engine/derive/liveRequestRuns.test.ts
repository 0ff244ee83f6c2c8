/**
 * Logged requests analyzed during ingest, as they arrive (derive/loggedRequests.ts), give exactly
 * what analyzing each run's requests after ingest gives: on an HTTP exchange log of many
 * conversations written in turns — Chat Completions and Responses continuations, with rewritten
 * histories, compactions, changed system prompts and tools, a call left without its result, usage
 * recorded or not — ingested by the real engine into a real SQLite file. And the same holds when
 * every run has to let go of what it holds after each request and read it back from the file.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openTrace } from '../../../src-main/engine/engine';
import { storedRunRequests } from '../../../src-main/engine/derive/requestAnalysis';
import { analyzeLoggedRequests, LiveRequestRuns, type RequestRecord } from '../../../src-main/engine/derive/loggedRequests';
import { answeringUsages, LoggedRequestReader } from '../../../src-main/engine/derive/requestHistory';
import { TokenEstimator } from '../../../src-main/engine/derive/tokenEstimator';
import { modelRequestEvents, usageEvents } from '../../../src-main/engine/store/events';
import { defaultAnalysis, temporaryDir } from '../../support/engineHarness';
import { Prng } from '../../../devkit/traceGenerators/prng';
import { normalizeChatCompletionsRequest } from '../../../shared/requests/apiRequestBodies';
import type { RequestThread } from '../../../src-main/engine/derive/requestBytes';

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
const sentence = (random: Random, length: number): string => Array.from({ length }, () => pick(random, words)).join(' ');
const toolNames = ['read_file', 'run_tests', 'search'];
const toolsOf = (names: readonly string[]) => names.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));

function exchangeLine(url: string, at: number, body: unknown, response: unknown): string {
  return JSON.stringify({
    request: { timestamp: at, method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
    response: { timestamp: at + 0.5, status_code: 200, headers: { 'content-type': 'application/json' }, body: response },
  });
}

/** The lines of one Chat Completions conversation, its history edited between turns now and then. */
function* chatConversation(random: Random, id: number, resultWords = 10): Generator<string> {
  let system = `You are agent ${id}. ${sentence(random, 6)}`;
  let tools = toolNames.slice(0, 1 + Math.floor(random() * 3));
  let history: Record<string, unknown>[] = [{ role: 'user', content: `Task ${id}: ${sentence(random, 12)}` }];
  const turns = 3 + Math.floor(random() * 8);
  for (let turn = 0; turn < turns; turn++) {
    const messages = [{ role: 'system', content: system }, ...history];
    const chars = JSON.stringify(messages).length;
    const calls = turn < turns - 1 && random() < 0.7 ? 1 + Math.floor(random() * 2) : 0;
    const toolCalls = Array.from({ length: calls }, (_, i) => ({
      id: `call_${id}_${turn}_${i}`,
      type: 'function',
      function: { name: pick(random, tools), arguments: JSON.stringify({ arg: sentence(random, 2) }) },
    }));
    const answer = calls > 0 ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: sentence(random, 8) };
    const usage = random() < 0.8 ? { prompt_tokens: Math.round(chars / 4), completion_tokens: 20, total_tokens: Math.round(chars / 4) + 20 } : undefined;
    yield exchangeLine(
      'https://api.openai.com/v1/chat/completions',
      1750000000 + id * 1000 + turn,
      { model: 'gpt-4.1-mini', messages, tools: toolsOf(tools), user: `conversation-${id}` },
      {
        id: `chatcmpl-${id}-${turn}`,
        object: 'chat.completion',
        model: 'gpt-4.1-mini',
        choices: [{ index: 0, message: answer, finish_reason: calls > 0 ? 'tool_calls' : 'stop' }],
        ...(usage === undefined ? {} : { usage }),
      },
    );
    history.push(answer);
    toolCalls.forEach((call, i) => {
      // Now and then a call's result never makes it into the history.
      if (!(i === 0 && random() < 0.1)) history.push({ role: 'tool', tool_call_id: call.id, content: sentence(random, resultWords) });
    });
    const edit = random();
    if (edit < 0.1 && history.length > 2) history[1] = { ...history[1]!, content: `edited: ${sentence(random, 5)}` };
    else if (edit < 0.18 && history.length > 4)
      history = [{ role: 'user', content: `Summary: ${sentence(random, 8)}` }, ...history.slice(Math.floor(history.length / 2))];
    else if (edit < 0.23) system = `You are agent ${id}, now ${sentence(random, 3)}`;
    else if (edit < 0.28) tools = toolNames.slice(0, 1 + Math.floor(random() * 3));
  }
}

/** The lines of one Responses conversation: the server keeps the history, each request names the response before it. */
function* responsesConversation(random: Random, id: number): Generator<string> {
  const turns = 2 + Math.floor(random() * 4);
  let input: unknown = `Task ${id}: ${sentence(random, 10)}`;
  for (let turn = 0; turn < turns; turn++) {
    const callId = `call_r${id}_${turn}`;
    const last = turn === turns - 1;
    const output = last
      ? [
          {
            type: 'message',
            id: `msg_${id}_${turn}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: sentence(random, 6), annotations: [] }],
          },
        ]
      : [{ type: 'function_call', id: `fc_${id}_${turn}`, call_id: callId, name: 'search', arguments: JSON.stringify({ q: sentence(random, 2) }) }];
    yield exchangeLine(
      'https://api.openai.com/v1/responses',
      1760000000 + id * 1000 + turn,
      {
        model: 'gpt-4.1',
        instructions: `You research topic ${id}.`,
        ...(turn === 0 ? {} : { previous_response_id: `resp_${id}_${turn - 1}` }),
        input,
        tools: [{ type: 'function', name: 'search', parameters: { type: 'object' } }],
      },
      {
        id: `resp_${id}_${turn}`,
        object: 'response',
        status: 'completed',
        model: 'gpt-4.1',
        output,
        usage: { input_tokens: 100 + turn * 40, output_tokens: 12, total_tokens: 112 + turn * 40 },
      },
    );
    input = [{ type: 'function_call_output', call_id: callId, output: sentence(random, 7) }];
  }
}

/** Conversations written in turns: each next line is from a conversation picked at random. */
function interleavedTrace(seed: number, conversations: number, resultWords = 10): string {
  const prng = new Prng(seed);
  const random = (): number => prng.next();
  const open = Array.from({ length: conversations }, (_, id) => (id % 4 === 3 ? responsesConversation(random, id) : chatConversation(random, id, resultWords)));
  const lines: string[] = [];
  while (open.length > 0) {
    const at = Math.floor(random() * open.length);
    const next = open[at]!.next();
    if (next.done === true) open.splice(at, 1);
    else lines.push(next.value);
  }
  return `${lines.join('\n')}\n`;
}

/** What analyzing each run after ingest gives, read with SQL from the trace's database. */
function analyzedAfterIngest(db: Database.Database, runPks: readonly number[]): Map<number, RequestRecord[]> {
  const reader = new LoggedRequestReader(db);
  const estimator = new TokenEstimator();
  try {
    return new Map(runPks.map((runPk) => [runPk, [...analyzeLoggedRequests(modelRequestEvents(db, runPk), answeringUsages(db, runPk), reader, estimator)]]));
  } finally {
    reader.close();
  }
}

/** The runs' requests fed to LiveRequestRuns in file order, every run letting go of its last request after each (a budget of one byte). */
function analyzedLiveLettingGo(db: Database.Database, runPks: readonly number[]): Map<number, RequestRecord[]> {
  const reader = new LoggedRequestReader(db);
  const records = new Map<number, RequestRecord[]>(runPks.map((runPk) => [runPk, []]));
  const live = new LiveRequestRuns(
    reader,
    new TokenEstimator(),
    (runPk, record, first) => {
      if (first) assert.deepEqual(records.get(runPk), [], `run ${runPk}: its first record is announced as first`);
      records.get(runPk)!.push(record);
    },
    1,
  );
  const rows = runPks.flatMap((runPk) => {
    const requests = new Map(modelRequestEvents(db, runPk).map((event) => [event.id, event]));
    return [...usageEvents(db, runPk)].map((usage) => ({ runPk, usage, request: requests.get(usage.id) ?? null }));
  });
  rows.sort((a, b) => a.usage.id - b.usage.id);
  try {
    for (const { runPk, usage, request } of rows) live.observe(runPk, { usage, request });
    for (const runPk of runPks) assert.equal(live.end(runPk), true, `run ${runPk} is analyzed live`);
  } finally {
    reader.close();
  }
  return records;
}

const plain = (records: readonly RequestRecord[]): unknown => JSON.parse(JSON.stringify(records));

describe('logged requests read back', { timeout: 120_000 }, () => {
  const dir = temporaryDir('read-back');
  after(() => dir.remove());

  it('are what their lines parsed whole give, read in turns in file order and backwards (line buffers going round, lines of every size)', async () => {
    const tracePath = join(dir.path, 'interleaved.jsonl');
    // Tool results of ~2 KB: histories from under 4 KiB to tens of KiB.
    writeFileSync(tracePath, interleavedTrace(4, 24, 300));
    const lines = readFileSync(tracePath, 'utf8').split('\n');
    const trace = await openTrace(tracePath, { cacheDir: join(dir.path, 'cache'), analysis: defaultAnalysis });
    const db = new Database(trace.dbPath, { readonly: true });
    const reader = new LoggedRequestReader(db);
    try {
      const events = db
        .prepare<[], { run_pk: number } & ReturnType<typeof modelRequestEvents>[number]>(
          "SELECT run_pk, id, source_id, line, step, byte_offset, byte_length FROM events WHERE type = 'model_request' ORDER BY id",
        )
        .all()
        .filter((event) => lines[event.line - 1]!.includes('/chat/completions'));
      const sizes = events.map((event) => event.byte_length);
      assert.ok(Math.min(...sizes) < 4096 && Math.max(...sizes) > 16384, `lines of ${Math.min(...sizes)}–${Math.max(...sizes)} bytes`);
      for (const order of [events, [...events].reverse()]) {
        const threads = new Map<number, RequestThread>();
        for (const event of order) {
          let thread = threads.get(event.run_pk);
          if (thread === undefined) {
            thread = { last: null };
            threads.set(event.run_pk, thread);
          }
          const body = (JSON.parse(lines[event.line - 1]!) as { request: { body: unknown } }).request.body;
          assert.deepEqual(reader.read(event, null, thread).request, normalizeChatCompletionsRequest(body), `line ${event.line}`);
        }
      }
    } finally {
      reader.close();
      db.close();
      await trace.stop();
    }
  });
});

describe('logged requests analyzed as they arrive', { timeout: 120_000 }, () => {
  const dir = temporaryDir('live-requests');
  after(() => dir.remove());

  for (const seed of [1, 2, 3]) {
    it(`give what analyzing each run after ingest gives (conversations in turns, seed ${seed})`, async () => {
      const tracePath = join(dir.path, `interleaved-${seed}.jsonl`);
      writeFileSync(tracePath, interleavedTrace(seed, 24));
      const trace = await openTrace(tracePath, { cacheDir: join(dir.path, `cache-${seed}`), analysis: defaultAnalysis });
      const db = new Database(trace.dbPath, { readonly: true });
      try {
        const runPks = db
          .prepare<[], { run_pk: number }>("SELECT DISTINCT run_pk FROM events WHERE type = 'model_request' ORDER BY run_pk")
          .all()
          .map((row) => row.run_pk);
        assert.ok(runPks.length >= 20, `the conversations are runs: ${runPks.length}`);
        const expected = analyzedAfterIngest(db, runPks);
        const kinds = new Set([...expected.values()].flat().flatMap((record) => record.findings.map((finding) => finding.kind)));
        assert.ok(kinds.size >= 2, `the trace exercises request findings: ${[...kinds].join(', ')}`);

        for (const runPk of runPks) assert.deepEqual(storedRunRequests(db, runPk), plain(expected.get(runPk)!), `run ${runPk} as stored by the ingest`);
        const lettingGo = analyzedLiveLettingGo(db, runPks);
        for (const runPk of runPks) assert.deepEqual(plain(lettingGo.get(runPk)!), plain(expected.get(runPk)!), `run ${runPk} read back after letting go`);
      } finally {
        db.close();
        await trace.stop();
      }
    });
  }
});
