/**
 * `loopscope mcp` end to end: the built CLI spawned on a library of example traces (and a long
 * generated run), talked to with the MCP SDK's own client over stdio.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateLongRunTrace } from '../../devkit/traceGenerators/longRunTrace';
import { temporaryDir } from '../support/engineHarness';
import { answer, cut, failure, maxAnswerChars, pageNote } from '../../src-main/mcp/mcpAnswers';

const root = join(import.meta.dirname, '..', '..');
const examples = ['dangling-call', 'history-rewrite', 'budget-exhausted', 'repeated-action', 'secret-in-trace'];

interface ToolAnswer {
  text: string;
  isError: boolean;
}

function textOf(result: unknown): ToolAnswer {
  const { content, isError } = result as { content: { type: string; text: string }[]; isError?: boolean };
  return { text: content.map((part) => part.text).join('\n'), isError: isError === true };
}

/** The JSON of an answer (its first line: notes follow it). */
function jsonOf(answer: ToolAnswer): Record<string, unknown> {
  assert.equal(answer.isError, false, answer.text);
  return JSON.parse(answer.text.split('\n')[0] ?? '') as Record<string, unknown>;
}

type Row = Record<string, unknown>;

describe('loopscope mcp', { timeout: 180_000 }, () => {
  const library = temporaryDir('mcp-library');
  const longDir = temporaryDir('mcp-long');
  const cache = temporaryDir('mcp-cache');
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> => textOf(await client.callTool({ name, arguments: args }));

  before(async () => {
    execFileSync(process.execPath, [join(root, 'node_modules', '.bin', 'electron-vite'), 'build'], { cwd: root, stdio: 'ignore' });
    for (const name of examples) copyFileSync(join(root, 'examples', `${name}.jsonl`), join(library.path, `${name}.jsonl`));
    mkdirSync(longDir.path, { recursive: true });
    generateLongRunTrace({ events: 3000, seed: 7, outPath: join(longDir.path, 'long-run.jsonl') });
    client = new Client({ name: 'loopscope-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(root, 'bin', 'loopscope.js'), 'mcp', library.path, join(longDir.path, 'long-run.jsonl'), '--cache-dir', cache.path],
        stderr: 'ignore',
      }),
    );
  });

  after(async () => {
    await client.close();
    library.remove();
    longDir.remove();
    cache.remove();
  });

  it('lists its tools, each with an input schema', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, [
      'compare_runs',
      'diff_requests',
      'failure_signatures',
      'get_event',
      'get_run',
      'list_events',
      'list_runs',
      'list_traces',
      'search',
    ]);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object');
      assert.ok((tool.description ?? '').length > 40, tool.name);
    }
  });

  it('lists the traces: the file given and the library', async () => {
    const answer = jsonOf(await call('list_traces', {}));
    const traces = answer['traces'] as Row[];
    assert.equal(answer['total'], examples.length + 1);
    for (const name of [...examples, 'long-run'])
      assert.ok(
        traces.some((trace) => String(trace['path']).endsWith(`${name}.jsonl`)),
        name,
      );
    const paged = await call('list_traces', { limit: 2 });
    assert.equal((jsonOf(paged)['traces'] as Row[]).length, 2);
    assert.match(paged.text, /next page: offset=2/);
  });

  it('walks from a finding kind to a run, its findings, the event and its raw line', async () => {
    const runs = jsonOf(await call('list_runs', { finding_kind: 'dangling_call' }))['runs'] as Row[];
    assert.ok(runs.length >= 1);
    assert.ok(runs.every((run) => (run['finding_kinds'] as string[]).includes('dangling_call')));
    const run = runs.find((row) => String(row['file']).endsWith('dangling-call.jsonl'));
    assert.ok(run, 'the dangling-call run');
    const detail = jsonOf(await call('get_run', { trace_id: run['trace_id'], run_pk: run['run_pk'] }));
    const findings = (detail['findings'] as { rows: Row[] }).rows;
    const dangling = findings.find((finding) => finding['kind'] === 'dangling_call');
    assert.ok(dangling, 'a dangling_call finding');
    assert.equal(typeof dangling['event_id'], 'number');
    const event = jsonOf(await call('get_event', { trace_id: run['trace_id'], event_id: dangling['event_id'] }));
    const raw = event['raw'] as { text: string; line: number };
    assert.ok(raw.text.startsWith('{'), raw.text);
    assert.equal(raw.line, dangling['line']);
    const short = await call('get_event', { trace_id: run['trace_id'], event_id: dangling['event_id'], max_chars: 100 });
    assert.match(short.text, /max_chars/);
  });

  it("pages a run's events", async () => {
    const run = (jsonOf(await call('list_runs', { text: 'history-rewrite' }))['runs'] as Row[])[0];
    assert.ok(run);
    const first = jsonOf(await call('list_events', { trace_id: run['trace_id'], run_pk: run['run_pk'], limit: 3 }));
    const second = jsonOf(await call('list_events', { trace_id: run['trace_id'], run_pk: run['run_pk'], offset: 3, limit: 3 }));
    assert.equal((first['events'] as Row[]).length, 3);
    assert.equal((second['events'] as Row[])[0]?.['index'], 3);
    assert.notEqual((first['events'] as Row[])[0]?.['event_id'], (second['events'] as Row[])[0]?.['event_id']);
  });

  it('diffs the rewritten request against the previous one', async () => {
    const run = (jsonOf(await call('list_runs', { finding_kind: 'history_rewrite' }))['runs'] as Row[])[0];
    assert.ok(run);
    const detail = jsonOf(await call('get_run', { trace_id: run['trace_id'], run_pk: run['run_pk'] }));
    const rewrite = (detail['findings'] as { rows: Row[] }).rows.find((finding) => finding['kind'] === 'history_rewrite');
    assert.ok(rewrite && typeof rewrite['event_id'] === 'number');
    const diff = jsonOf(await call('diff_requests', { trace_id: run['trace_id'], event_id: rewrite['event_id'] }));
    assert.equal((diff['history'] as { verdict: string }).verdict, 'rewritten');
    assert.ok((diff['changes'] as Row[]).length >= 1);
  });

  it('compares two runs, searches and lists failure signatures', async () => {
    const runs = jsonOf(await call('list_runs', { text: 'repeated-action' }))['runs'] as Row[];
    const other = jsonOf(await call('list_runs', { text: 'budget-exhausted' }))['runs'] as Row[];
    const [a, b] = [runs[0], other[0]];
    assert.ok(a && b);
    const comparison = jsonOf(await call('compare_runs', { trace_id: a['trace_id'], run_pk_a: a['run_pk'], trace_id_b: b['trace_id'], run_pk_b: b['run_pk'] }));
    assert.ok('delta' in comparison && 'first_divergence' in comparison);
    const found = jsonOf(await call('search', { query: 'boots' }));
    assert.ok((found['runs'] as Row[]).length >= 1);
    const inTrace = jsonOf(await call('search', { query: 'boots', trace_id: (found['runs'] as Row[])[0]?.['trace_id'] }));
    assert.ok((inTrace['hits'] as Row[]).length >= 1);
    const signatures = jsonOf(await call('failure_signatures', { limit: 5 }));
    assert.ok((signatures['total'] as number) >= 1);
    assert.ok((signatures['signatures'] as Row[]).length <= 5);
  });

  it('masks credentials in an event and its raw line', async () => {
    const run = (jsonOf(await call('list_runs', { finding_kind: 'secret_in_trace' }))['runs'] as Row[])[0];
    assert.ok(run);
    const detail = jsonOf(await call('get_run', { trace_id: run['trace_id'], run_pk: run['run_pk'] }));
    const secrets = (detail['findings'] as { rows: Row[] }).rows.filter(
      (finding) => finding['kind'] === 'secret_in_trace' && typeof finding['event_id'] === 'number',
    );
    assert.ok(secrets.length >= 1);
    for (const finding of secrets) {
      const event = await call('get_event', { trace_id: run['trace_id'], event_id: finding['event_id'], max_chars: 100_000 });
      assert.equal(event.isError, false);
      assert.doesNotMatch(event.text, /EXAMPLE0KEY0NOT0REAL0EXAMPLE0KEY0NOT0REAL|ghp_EXAMPLE0EXAMPLE0EXAMPLE0EXAMPLE0EXAM/);
    }
  });

  it('answers an unknown run or a bad id with a tool error', async () => {
    const traces = jsonOf(await call('list_traces', {}))['traces'] as Row[];
    const unknownRun = await call('get_run', { trace_id: traces[0]?.['trace_id'], run_pk: 987654 });
    assert.equal(unknownRun.isError, true);
    assert.ok(unknownRun.text.length > 0);
    const unknownTrace = await call('get_event', { trace_id: 'no-such-trace', event_id: 1 });
    assert.equal(unknownTrace.isError, true);
    assert.match(unknownTrace.text, /no-such-trace/);
  });

  it('keeps a long run within its limits', async () => {
    const traces = jsonOf(await call('list_traces', {}))['traces'] as Row[];
    const long = traces.find((trace) => String(trace['path']).endsWith('long-run.jsonl'));
    assert.ok(long);
    const runs = jsonOf(await call('list_runs', { trace_id: long['trace_id'] }))['runs'] as Row[];
    const run = runs[0];
    assert.ok(run);
    const events = await call('list_events', { trace_id: long['trace_id'], run_pk: run['run_pk'], limit: 200 });
    const page = jsonOf(events);
    assert.equal((page['events'] as Row[]).length, 200);
    assert.ok((page['total'] as number) > 200);
    assert.match(events.text, /next page: offset=200/);
    const tooMany = await call('list_events', { trace_id: long['trace_id'], run_pk: run['run_pk'], limit: 5000 });
    assert.equal(tooMany.isError, true);
    const detail = jsonOf(await call('get_run', { trace_id: long['trace_id'], run_pk: run['run_pk'], findings_limit: 1 }));
    const findings = detail['findings'] as { total: number; rows: Row[] };
    assert.ok(findings.rows.length <= 1);
  });
});

describe('loopscope mcp on files without a library', { timeout: 120_000 }, () => {
  const cache = temporaryDir('mcp-files-cache');
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> => textOf(await client.callTool({ name, arguments: args }));

  before(async () => {
    // The suite above built the CLI.
    client = new Client({ name: 'loopscope-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          join(root, 'bin', 'loopscope.js'),
          'mcp',
          join(root, 'examples', 'dangling-call.jsonl'),
          join(root, 'examples', 'tool-error.jsonl'),
          '--cache-dir',
          cache.path,
        ],
        stderr: 'ignore',
      }),
    );
  });

  after(async () => {
    await client.close();
    cache.remove();
  });

  it('lists the runs of the files and searches them; failure signatures need a library', async () => {
    const traces = jsonOf(await call('list_traces'));
    assert.equal(traces['total'], 2);
    const all = jsonOf(await call('list_runs'));
    assert.ok((all['total'] as number) >= 2);
    const dangling = jsonOf(await call('list_runs', { finding_kind: 'dangling_call' }))['runs'] as Row[];
    assert.ok(dangling.length >= 1);
    assert.ok(dangling.every((run) => String(run['file']).endsWith('dangling-call.jsonl')));
    const found = jsonOf(await call('search', { query: 'Leipzig' }));
    assert.equal(found['total'], 5, JSON.stringify(found));
    assert.equal(new Set((found['hits'] as Row[]).map((hit) => hit['trace_id'])).size, 2);
    const paged = await call('search', { query: 'Leipzig', offset: 1, limit: 2 });
    assert.equal((jsonOf(paged)['hits'] as Row[]).length, 2);
    assert.match(paged.text, /next page: offset=3/);
    const signatures = await call('failure_signatures');
    assert.equal(signatures.isError, true);
    assert.match(signatures.text, /library/);
  });
});

describe('loopscope mcp --help', () => {
  it('prints its usage and tools, and a bad flag is a usage error', () => {
    const help = spawnSync(process.execPath, [join(root, 'bin', 'loopscope.js'), 'mcp', '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^usage: loopscope mcp \[FILE\|DIR\.\.\.\]/);
    assert.match(help.stdout, /list_runs/);
    assert.doesNotMatch(help.stdout, /loopscope analyze/);
    const all = spawnSync(process.execPath, [join(root, 'bin', 'loopscope.js'), '--help'], { encoding: 'utf8' });
    assert.match(all.stdout, /loopscope mcp \[FILE\|DIR\.\.\.\]/);
    const bad = spawnSync(process.execPath, [join(root, 'bin', 'loopscope.js'), 'mcp', '--no-such-flag'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
  });
});

describe('MCP answers', () => {
  it('are cut at the cap with a note, and failures are tool errors', () => {
    const long = answer({ rows: Array.from({ length: 5000 }, (_, index) => ({ index, text: 'x'.repeat(40) })) });
    const text = long.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    assert.ok(text.length < maxAnswerChars + 300);
    assert.match(text, /truncated at 40000 characters/);
    assert.deepEqual(failure(new Error('no run 9')), { content: [{ type: 'text', text: 'no run 9' }], isError: true });
    assert.equal(cut('abcdef', 3), 'abc… [3 more characters]');
  });

  it('cut a page too long to the rows that fit, still JSON, saying where the next page starts', () => {
    const rows = Array.from({ length: 2000 }, (_, index) => ({ index, text: 'x'.repeat(40) }));
    const long = answer({ total: 9000, offset: 1000, runs: rows }, pageNote(1000, rows.length, 9000));
    const [json, note, ...rest] = long.content
      .map((part) => (part.type === 'text' ? part.text : ''))
      .join('')
      .split('\n');
    assert.ok(json!.length <= maxAnswerChars);
    const page = JSON.parse(json!) as { total: number; offset: number; runs: { index: number }[] };
    assert.equal(page.total, 9000);
    assert.ok(page.runs.length > 100 && page.runs.length < rows.length);
    assert.deepEqual(
      page.runs.map((run) => run.index),
      rows.slice(0, page.runs.length).map((row) => row.index),
    );
    assert.equal(note, `[${page.runs.length} of the 2000 runs asked fit in 40000 characters; next page: offset=${1000 + page.runs.length}]`);
    assert.deepEqual(rest, [], "the page's own note, now wrong, is gone");
  });
});
