/**
 * A large file is written by a store worker beside the parsing thread, a small one by the parsing
 * thread itself. Both paths must load and analyze a trace identically; this forces each path on
 * the same files: every bundled example, a session with its sub-agent files (one source after
 * another in one database), and a generated trace that crosses batch boundaries,
 * interleaves runs, scans long lines, and changes a run after it was analyzed.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeFile, temporaryDir } from '../../support/engineHarness';
import { examplesDir, repoRoot } from '../../../devkit/repoPaths';

const threaded = { storeWorkerMinBytes: 0 };
const inProcess = { storeWorkerMinBytes: Number.MAX_SAFE_INTEGER };

function generatedTrace(): string {
  const lines: string[] = [];
  const longText = 'history '.repeat(2000);
  for (let run = 0; run < 700; run += 1) {
    const id = `run-${run}`;
    const ev = (fields: Record<string, unknown>): void => {
      lines.push(JSON.stringify({ run_id: id, ...fields }));
    };
    ev({ type: 'run_start', config: { budgets: { max_tool_calls: 3 } } });
    ev({ type: 'model_request', step: 1, messages: [{ role: 'user', content: run % 5 === 0 ? longText : 'hi' }], tools: [{ name: 'search' }] });
    ev({
      type: 'model_response',
      step: 1,
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: `${id}-c1`, name: 'search', arguments: { q: 'x' } }],
    });
    if (run % 7 !== 0)
      ev({
        type: 'tool_result',
        step: 1,
        call_id: `${id}-c1`,
        status: run % 3 === 0 ? 'error' : 'ok',
        output: run % 4 === 0 ? longText : 'found',
        error: run % 3 === 0 ? { code: 'TIMEOUT' } : undefined,
      });
    ev({ type: 'model_response', step: 2, outcome: 'final', finish_reason: 'stop', text: 'done' });
    if (run % 11 !== 0) ev({ type: 'run_end', status: 'MODEL_FINISHED' });
  }
  // A run analyzed when it ended, then changed: its late call never gets a result.
  lines.push(
    JSON.stringify({
      run_id: 'run-1',
      type: 'model_response',
      step: 3,
      outcome: 'tool_calls',
      finish_reason: 'tool_calls',
      tool_calls: [{ call_id: 'late', name: 'search', arguments: '{}' }],
    }),
  );
  return `${lines.join('\n')}\n`;
}

describe('threaded and in-process loading', () => {
  const dir = temporaryDir('paths');
  after(() => dir.remove());

  const files = readdirSync(examplesDir)
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => join(examplesDir, file));

  for (const file of files) {
    it(`give the same report for ${file.split('/').at(-1)}`, async () => {
      const a = await analyzeFile(file, threaded);
      const b = await analyzeFile(file, inProcess);
      assert.deepEqual(a.report, b.report);
    });
  }

  it('give the same report for a session read with its sub-agent files, each file a source written after the one before', async () => {
    const session = join(repoRoot, 'test', 'fixtures', 'ui', 'task-subagent', '7c1d2e9a-4b3f-4e8a-9d21-5f6a7b8c9d0e.jsonl');
    const a = await analyzeFile(session, threaded);
    const b = await analyzeFile(session, inProcess);
    assert.deepEqual(a.report, b.report);
    assert.equal(a.trace.companions.length, 2);
    assert.equal(a.report.runs.filter((run) => run.parent !== undefined).length, 2);
  });

  it('give the same report for a generated multi-batch trace, including a run changed after its analysis', async () => {
    const path = join(dir.path, 'generated.jsonl');
    writeFileSync(path, generatedTrace());
    const a = await analyzeFile(path, threaded);
    const b = await analyzeFile(path, inProcess);
    assert.deepEqual(a.report, b.report);
    assert.equal(a.report.runs.length, 700);
    // The late model call came after run-1's run_end: logged after the end, and its call never answered.
    const late = a.report.findings.filter((f) => f.run_id === 'run-1');
    assert.deepEqual(late.map((f) => [f.kind, f.call_id]).sort(), [
      ['dangling_call', 'late'],
      ['event_after_end', null],
    ]);
    assert.equal(a.report.findings.filter((f) => f.kind === 'dangling_call').length, 1 + 100);
    assert.equal(a.report.findings.filter((f) => f.kind === 'unterminated_run').length, 64);
  });
});
