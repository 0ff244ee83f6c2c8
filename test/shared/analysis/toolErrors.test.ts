/** Tool errors keep their category visible (docs/semantics.md §7). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { correlateCalls } from '../../../shared/analysis/callCorrelation';
import type { RunTimeline } from '../../../shared/analysis/timeline';
import { analyzeToolErrors } from '../../../shared/analysis/toolErrors';
import { lineOf, run } from './timelineBuilder';

const analyze = (t: RunTimeline) => analyzeToolErrors(t, correlateCalls(t).resolutions);

describe('tool errors', () => {
  it('reports one info finding per error result, naming the tool, call and error code', () => {
    const t = run()
      .toolCalls({ id: 'c1', name: 'write_file' }, { id: 'c2', name: 'fetch_url' }, { id: 'c3', name: 'read_file' })
      .error('c1', 'permission_denied')
      .error('c2', 'timeout')
      .result('c3')
      .final()
      .build();
    const findings = analyze(t);
    assert.deepEqual(
      findings.map((f) => [f.kind, f.severity, f.step, f.call_id, f.line, f.details]),
      [
        ['tool_error', 'info', 1, 'c1', lineOf(t, 'result', 'c1'), { code: 'permission_denied' }],
        ['tool_error', 'info', 1, 'c2', lineOf(t, 'result', 'c2'), { code: 'timeout' }],
      ],
    );
    assert.match(findings[0]?.message ?? '', /write_file \(c1, step 1\) returned an error permission_denied/);
    assert.match(findings[1]?.message ?? '', /fetch_url \(c2, step 1\) returned an error timeout/);
  });

  it('says so when an error result has no code', () => {
    const t = run().toolCalls({ id: 'c1', name: 'shell' }).error('c1', null).final().build();
    const [f] = analyze(t);
    assert.match(f?.message ?? '', /shell \(c1, step 1\) returned an error without an error code/);
    assert.deepEqual(f?.details, { code: null });
  });

  it('reports an error result even when it answers no call, using the name on the result', () => {
    const t = run().error('ghost', 'not_found', { name: 'lookup', step: null }).final().build();
    const [f, ...rest] = analyze(t);
    assert.equal(rest.length, 0);
    assert.equal(f?.call_id, 'ghost');
    assert.equal(f?.step, null);
    assert.match(f?.message ?? '', /lookup \(ghost\) returned an error not_found/);
  });

  it('ends the message with the line that says why, after the code or in its place', () => {
    const t = run()
      .toolCalls({ id: 'c1', name: 'Bash' }, { id: 'c2', name: 'Edit' })
      .error('c1', 'exit_code_1', { errorLine: "ls: cannot access 'types/': No such file or directory" })
      .error('c2', null, { errorLine: 'File has not been read yet. Read it first before writing to it.' })
      .final()
      .build();
    const [bash, edit] = analyze(t);
    assert.equal(bash?.message, "Bash (c1, step 1) returned an error exit_code_1: ls: cannot access 'types/': No such file or directory");
    assert.deepEqual(bash?.details, { code: 'exit_code_1', error_line: "ls: cannot access 'types/': No such file or directory" });
    assert.equal(edit?.message, 'Edit (c2, step 1) returned an error: File has not been read yet. Read it first before writing to it.');
    assert.deepEqual(edit?.details, { code: null, error_line: 'File has not been read yet. Read it first before writing to it.' });
  });

  it('reports nothing when every tool call succeeded', () => {
    const t = run().toolCalls({ id: 'c1' }, { id: 'c2' }).result('c1').result('c2').final().build();
    assert.deepEqual(analyze(t), []);
  });
});

describe('tool errors: which call an error result speaks for', () => {
  it('takes the name and step of the call it answers over those written on the result', () => {
    const t = run().toolCalls({ id: 'c1', name: 'write_file' }).error('c1', 'EACCES', { name: 'fs.write', step: 2 }).final().build();
    const [f] = analyze(t);
    assert.equal(f?.step, 1);
    assert.match(f?.message ?? '', /^write_file \(c1, step 1\) returned an error EACCES$/);
  });

  it('calls the tool "tool" when neither a call nor the result names it', () => {
    const t = run().error('ghost', 'boom', { name: null, step: 3 }).final().build();
    const [f] = analyze(t);
    assert.equal(f?.step, 3);
    assert.equal(f?.message, 'tool (ghost, step 3) returned an error boom');
  });
});
