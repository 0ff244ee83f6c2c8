/**
 * The benchmark's many-short-conversations trace (devkit/traceGenerators/chatTrace.ts) is a log
 * Loopscope reads as what it is: a small one, analyzed by the real engine, is an OpenAI Chat
 * Completions exchange log whose threads are exactly its conversations (told apart by the `user`
 * each request carries, which the engine does not read), every tool call matched to its result,
 * without a parse error or a finding. And the same seed writes the same bytes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateChatTrace } from '../../../devkit/traceGenerators/chatTrace';
import { analyzeFile, temporaryDir } from '../../support/engineHarness';

interface ChatLine {
  request: { url: string; body: { user: string; messages: { role: string }[]; tools: { function: { name: string } }[] } };
  response: { body: { choices: { message: { tool_calls?: { id: string }[] } }[] } };
}

/** Per conversation (the request's `user`): the 1-based lines of its requests and the calls its responses issued. */
function conversationsOf(path: string): Map<string, { lines: number[]; calls: number }> {
  const conversations = new Map<string, { lines: number[]; calls: number }>();
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .forEach((text, index) => {
      const exchange = JSON.parse(text) as ChatLine;
      const conversation = conversations.get(exchange.request.body.user) ?? { lines: [], calls: 0 };
      conversation.lines.push(index + 1);
      conversation.calls += exchange.response.body.choices[0]?.message.tool_calls?.length ?? 0;
      conversations.set(exchange.request.body.user, conversation);
    });
  return conversations;
}

const sha1 = (path: string): string => createHash('sha1').update(readFileSync(path)).digest('hex');

describe('the many-short-conversations bench trace', { timeout: 120_000 }, () => {
  const dir = temporaryDir('chat-trace');
  after(() => dir.remove());

  it('is read as its conversations: one thread each, every call matched to its result, nothing flagged', async () => {
    const trace = join(dir.path, 'chat.jsonl');
    const stats = generateChatTrace({ targetBytes: 2 * 1024 * 1024, seed: 5, outPath: trace });
    const conversations = conversationsOf(trace);
    assert.equal(conversations.size, stats.runs);
    assert.ok(stats.runs >= 10, `several conversations: ${stats.runs}`);
    const { report } = await analyzeFile(trace);

    const [file] = report.files;
    assert.equal(file?.format, 'http-exchange');
    assert.match(file?.format_reason ?? '', /\(20 OpenAI Chat Completions\)$/);
    assert.deepEqual(file?.parse_errors, []);
    assert.equal(file?.lines, stats.lines);
    assert.deepEqual(report.findings, []);

    // Each thread holds the requests of exactly one conversation, all of them, in order.
    const threads = report.runs.map((run) => ({
      lines: run.requests.map((request) => request.line),
      calls: run.tool_calls,
      results: run.tool_results,
      status: run.status,
    }));
    const expected = [...conversations.values()].map((conversation) => ({
      lines: conversation.lines,
      calls: conversation.calls,
      results: conversation.calls,
      status: 'model_finished',
    }));
    const byFirstLine = (a: { lines: number[] }, b: { lines: number[] }): number => (a.lines[0] ?? 0) - (b.lines[0] ?? 0);
    assert.deepEqual(threads.sort(byFirstLine), expected.sort(byFirstLine));
  });

  it('has the advertised shape: about twenty requests a conversation, 5–15 KB lines, two tools, interleaved', () => {
    const trace = join(dir.path, 'shape.jsonl');
    const stats = generateChatTrace({ targetBytes: 4 * 1024 * 1024, seed: 2, outPath: trace });
    const lines = readFileSync(trace, 'utf8').trimEnd().split('\n');
    const meanKb = stats.bytes / stats.lines / 1024;
    assert.ok(meanKb > 8 && meanKb < 10.5, `mean line ${meanKb.toFixed(1)} KB`);
    const sizes = lines.map((line) => Buffer.byteLength(line) / 1024).sort((a, b) => a - b);
    assert.ok((sizes[Math.floor(sizes.length * 0.05)] ?? 0) > 4.5 && (sizes[Math.floor(sizes.length * 0.95)] ?? 0) < 15.5, 'lines of 5–15 KB');
    const perConversation = stats.lines / stats.runs;
    assert.ok(perConversation > 18 && perConversation < 22, `${perConversation.toFixed(1)} requests a conversation`);
    const exchanges = lines.map((line) => JSON.parse(line) as ChatLine);
    assert.ok(exchanges.every((exchange) => exchange.request.url.endsWith('/v1/chat/completions')));
    assert.deepEqual([...new Set(exchanges.flatMap((exchange) => exchange.request.body.tools.map((tool) => tool.function.name)))].sort(), [
      'read_file',
      'search_code',
    ]);
    const switches = exchanges.filter((exchange, index) => index > 0 && exchange.request.body.user !== exchanges[index - 1]?.request.body.user).length;
    assert.ok(switches > exchanges.length / 2, `consecutive lines mostly of different conversations: ${switches} of ${exchanges.length}`);
  });

  it('writes the same bytes for the same seed, other bytes for another', () => {
    const write = (name: string, seed: number): string => {
      const path = join(dir.path, name);
      generateChatTrace({ targetBytes: 512 * 1024, seed, outPath: path });
      return sha1(path);
    };
    const first = write('a.jsonl', 11);
    assert.equal(write('b.jsonl', 11), first);
    assert.notEqual(write('c.jsonl', 12), first);
  });
});
