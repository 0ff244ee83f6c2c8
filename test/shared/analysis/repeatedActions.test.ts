/** Repeated actions without progress: the windowed algorithm of docs/semantics.md §6. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { correlateCalls } from '../../../shared/analysis/callCorrelation';
import { analyzeRepeatedActions } from '../../../shared/analysis/repeatedActions';
import type { RunTimeline } from '../../../shared/analysis/timeline';
import type { AnalysisOptions } from '../../../shared/report';
import { callOf, edited, run, type TimelineBuilder } from './timelineBuilder';

const defaults: AnalysisOptions = { window: 6, threshold: 3 };

interface Act {
  name?: string;
  args?: unknown;
  /** Result hash; 'same' by default, so identical actions get identical results. */
  hash?: string | null;
  progress?: boolean | null;
  /** No result logged for this call. */
  noResult?: boolean;
}

const A: Act = { name: 'read_file', args: { path: 'notes.txt' } };

/** One tool call per turn, call ids c1…cn, each followed by its result; then a final answer. */
function loop(acts: readonly Act[], usage?: { inputTokens: number; outputTokens: number }): RunTimeline {
  const builder: TimelineBuilder = run({ status: 'failed' });
  acts.forEach((act, i) => {
    const id = `c${i + 1}`;
    builder.response({ calls: [{ id, name: act.name ?? 'search', args: act.args ?? {} }], ...usage });
    if (!act.noResult) builder.result(id, { hash: act.hash === undefined ? 'same' : act.hash, progress: act.progress ?? null });
  });
  return builder.build();
}

function analyze(t: RunTimeline, options: AnalysisOptions = defaults) {
  return analyzeRepeatedActions(t, correlateCalls(t).resolutions, options);
}

const callIds = (f: ReturnType<typeof analyze>[number] | undefined): string[] => ((f?.details?.['calls'] ?? []) as { call_id: string }[]).map((c) => c.call_id);

describe('repeated actions: firing', () => {
  it('fires at the threshold-th identical call with identical results, naming the tool and arguments', () => {
    const t = loop([A, A, A]);
    const findings = analyze(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.kind, 'repeated_action');
    assert.equal(f?.severity, 'warning');
    assert.equal(f?.step, 3);
    assert.equal(f?.call_id, 'c3');
    assert.equal(f?.line, callOf(t, 'c3').line);
    assert.match(f?.message ?? '', /read_file\(\{"path":"notes.txt"\}\) was repeated 3 times/);
    assert.match(f?.message ?? '', /threshold 3 in a window of 6 tool calls/);
    assert.deepEqual(callIds(f), ['c1', 'c2', 'c3']);
    assert.deepEqual(f?.details?.['calls'], [
      { call_id: 'c1', step: 1, line: callOf(t, 'c1').line },
      { call_id: 'c2', step: 2, line: callOf(t, 'c2').line },
      { call_id: 'c3', step: 3, line: callOf(t, 'c3').line },
    ]);
  });

  it('does not fire below the threshold', () => {
    assert.deepEqual(analyze(loop([A, A])), []);
  });

  it('treats arguments that differ only in key order as the same action', () => {
    const t = loop([
      { name: 'grep', args: { pattern: 'TODO', path: 'src' } },
      { name: 'grep', args: { path: 'src', pattern: 'TODO' } },
      { name: 'grep', args: { pattern: 'TODO', path: 'src' } },
    ]);
    assert.deepEqual(callIds(analyze(t)[0]), ['c1', 'c2', 'c3']);
  });

  it('does not count calls with different arguments or different tools together', () => {
    const t = loop([
      { name: 'read_file', args: { path: 'a' } },
      { name: 'read_file', args: { path: 'b' } },
      { name: 'open_file', args: { path: 'a' } },
      { name: 'read_file', args: { path: 'a' } },
    ]);
    assert.deepEqual(analyze(t), []);
  });

  it('counts calls that never got a result as no progress', () => {
    const t = loop([
      { ...A, noResult: true },
      { ...A, noResult: true },
      { ...A, noResult: true },
    ]);
    assert.equal(analyze(t).length, 1);
  });

  it('counts identical calls interleaved with other calls', () => {
    const B: Act = { name: 'list_dir', args: { path: '.' } };
    const findings = analyze(loop([A, B, A, B, A]));
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.call_id, 'c5');
    assert.deepEqual(callIds(findings[0]), ['c1', 'c3', 'c5']);
  });
});

describe('repeated actions: progress', () => {
  it('does not fire when each repetition returns a different result (paging, polling that moves)', () => {
    assert.deepEqual(
      analyze(
        loop([
          { ...A, hash: 'page1' },
          { ...A, hash: 'page2' },
          { ...A, hash: 'page3' },
          { ...A, hash: 'page4' },
        ]),
      ),
      [],
    );
  });

  it('a result that alternates between two values (flapping) is no progress once both were seen', () => {
    // x is new (first), y is new (progress), then x, y, x were all returned before.
    const findings = analyze(
      loop([
        { ...A, hash: 'x' },
        { ...A, hash: 'y' },
        { ...A, hash: 'x' },
        { ...A, hash: 'y' },
        { ...A, hash: 'x' },
      ]),
    );
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.call_id, 'c5');
    assert.deepEqual(callIds(findings[0]), ['c3', 'c4', 'c5']);
  });

  it('a result equal to an earlier one that is not the last is no progress; a never-seen one is', () => {
    // c4 returns x again (seen at c1): no progress; c5 returns z, never seen: progress, which clears the count.
    const acts: Act[] = [
      { ...A, hash: 'x' },
      { ...A, hash: 'y' },
      { ...A, hash: 'x' },
      { ...A, hash: 'y' },
      { ...A, hash: 'z' },
      { ...A, hash: 'x' },
      { ...A, hash: 'y' },
    ];
    assert.deepEqual(analyze(loop(acts)), []);
    assert.deepEqual(analyze(loop([...acts, { ...A, hash: 'z' }])).map(callIds), [['c6', 'c7', 'c8']]);
  });

  it('an explicit progress flag of true clears all counts', () => {
    assert.deepEqual(analyze(loop([A, A, { ...A, progress: true }, A, A])), []);
  });

  it('counts again from the progress reset and reports only the calls after it', () => {
    const findings = analyze(loop([A, A, { ...A, progress: true }, A, A, A]));
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.call_id, 'c6');
    assert.deepEqual(callIds(findings[0]), ['c4', 'c5', 'c6']);
  });

  it('progress made by a different action clears the counts too', () => {
    const B: Act = { name: 'write_file', args: { path: 'out' }, progress: true };
    assert.deepEqual(analyze(loop([A, A, B, A])), []);
  });

  it('an explicit progress flag of false counts the call even when its result differs', () => {
    const t = loop([
      { ...A, hash: 'r1', progress: false },
      { ...A, hash: 'r2', progress: false },
      { ...A, hash: 'r3', progress: false },
    ]);
    assert.equal(analyze(t).length, 1);
  });
});

describe('repeated actions: window and threshold', () => {
  // A at positions 1, 4 and 8 of 8 tool calls; the others are all different.
  const spread = (): RunTimeline => loop([A, { args: { q: 1 } }, { args: { q: 2 } }, A, { args: { q: 3 } }, { args: { q: 4 } }, { args: { q: 5 } }, A]);

  it('does not fire when the identical calls are spread wider than the window', () => {
    assert.deepEqual(analyze(spread(), { window: 6, threshold: 3 }), []);
  });

  it('fires for the same calls when the window is widened to cover them', () => {
    const findings = analyze(spread(), { window: 8, threshold: 3 });
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.call_id, 'c8');
    assert.deepEqual(callIds(findings[0]), ['c1', 'c4', 'c8']);
    assert.match(findings[0]?.message ?? '', /window of 8 tool calls/);
  });

  // Window boundary: the third A is the 6th tool call counted from the first A, or the 7th.
  const B = (q: number): Act => ({ args: { q } });
  const withinSix = (): RunTimeline => loop([A, B(1), B(2), B(3), A, A]);
  const acrossSeven = (): RunTimeline => loop([A, B(1), B(2), B(3), B(4), A, A]);

  it('fires when the three identical calls span exactly the window (6 tool calls)', () => {
    const findings = analyze(withinSix(), { window: 6, threshold: 3 });
    assert.equal(findings[0]?.call_id, 'c6');
    assert.deepEqual(callIds(findings[0]), ['c1', 'c5', 'c6']);
  });

  it('does not fire when they span one tool call more than the window (7), and fires with a window of 7', () => {
    assert.deepEqual(analyze(acrossSeven(), { window: 6, threshold: 3 }), []);
    assert.deepEqual(callIds(analyze(acrossSeven(), { window: 7, threshold: 3 })[0]), ['c1', 'c6', 'c7']);
  });

  it('fires at exactly the threshold: 2 identical calls do not, the 3rd does', () => {
    assert.deepEqual(analyze(loop([A, A, B(1), B(2)]), { window: 6, threshold: 3 }), []);
    const findings = analyze(loop([A, A, B(1), A]), { window: 6, threshold: 3 });
    assert.equal(findings[0]?.call_id, 'c4');
    assert.match(findings[0]?.message ?? '', /repeated 3 times/);
  });

  it('windows over tool calls only: responses without calls and results do not push calls out', () => {
    const builder = run({ status: 'failed' })
      .toolCalls({ id: 'c1', ...A })
      .result('c1', { hash: 'same' });
    for (let i = 0; i < 5; i++) builder.response({ outcome: 'incomplete', finishReason: 'tool_calls', calls: [] });
    builder
      .toolCalls({ id: 'c2', ...A })
      .result('c2', { hash: 'same' })
      .toolCalls({ id: 'c3', ...A })
      .result('c3', { hash: 'same' });
    const findings = analyze(builder.build(), { window: 3, threshold: 3 });
    assert.deepEqual(callIds(findings[0]), ['c1', 'c2', 'c3']);
  });

  it('respects a lower threshold', () => {
    const findings = analyze(loop([A, A]), { window: 6, threshold: 2 });
    assert.equal(findings.length, 1);
    assert.equal(findings[0]?.call_id, 'c2');
    assert.match(findings[0]?.message ?? '', /threshold 2/);
  });

  it('respects a higher threshold', () => {
    assert.deepEqual(analyze(loop([A, A, A]), { window: 6, threshold: 4 }), []);
  });
});

describe('repeated actions: episodes and cost', () => {
  it('reports a long repetition once, with every call involved and what it cost in calls, turns and tokens', () => {
    const t = loop([A, A, A, A, A], { inputTokens: 1000, outputTokens: 50 });
    const findings = analyze(t);
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f?.call_id, 'c3');
    assert.deepEqual(callIds(f), ['c1', 'c2', 'c3', 'c4', 'c5']);
    assert.equal(f?.details?.['tool_calls'], 5);
    assert.equal(f?.details?.['turns'], 5);
    assert.equal(f?.details?.['tokens'], 5250);
    assert.match(f?.message ?? '', /repeated 5 times/);
    assert.match(f?.message ?? '', /5 tool calls over 5 turns and 5,250 tokens/);
  });

  it('counts parallel identical calls of one turn as several tool calls but one turn', () => {
    const t = run({ status: 'failed' })
      .response({
        calls: [
          { id: 'c1', ...A },
          { id: 'c2', ...A },
        ],
        inputTokens: 100,
        outputTokens: 10,
      })
      .result('c1', { hash: 'same' })
      .result('c2', { hash: 'same' })
      .response({ calls: [{ id: 'c3', ...A }], inputTokens: 200, outputTokens: 10 })
      .result('c3', { hash: 'same' })
      .build();
    const [f] = analyze(t);
    assert.equal(f?.details?.['tool_calls'], 3);
    assert.equal(f?.details?.['turns'], 2);
    assert.equal(f?.details?.['tokens'], 320);
  });

  it('leaves tokens out of the cost when the responses carry no usage', () => {
    const [f] = analyze(loop([A, A, A]));
    assert.equal(f?.details?.['tokens'], null);
    assert.match(f?.message ?? '', /cost 3 tool calls over 3 turns$/);
  });

  it('reports two repetitions separated by progress as two episodes', () => {
    const findings = analyze(loop([A, A, A, { ...A, progress: true }, A, A, A]));
    assert.deepEqual(findings.map(callIds), [
      ['c1', 'c2', 'c3'],
      ['c5', 'c6', 'c7'],
    ]);
  });

  it('reports nothing for a healthy run of different actions', () => {
    const t = loop([{ args: { q: 1 } }, { args: { q: 2 } }, { name: 'read_file' }, { name: 'write_file' }, { args: { q: 3 } }]);
    assert.deepEqual(analyze(t), []);
  });
});

describe('repeated actions: which calls count', () => {
  it('leaves out the calls of a response that did not issue them (truncated, broken stream)', () => {
    const t = run({ status: 'failed' })
      .toolCalls({ id: 'c1', ...A })
      .result('c1', { hash: 'same' })
      .response({ outcome: 'incomplete', finishReason: 'length', calls: [{ id: 'c2', ...A }] })
      .toolCalls({ id: 'c3', ...A })
      .result('c3', { hash: 'same' })
      .build();
    assert.deepEqual(analyze(t), []);
    // The same three calls, all issued, fire.
    const issued = run({ status: 'failed' })
      .toolCalls({ id: 'c1', ...A })
      .result('c1', { hash: 'same' })
      .toolCalls({ id: 'c2', ...A })
      .toolCalls({ id: 'c3', ...A })
      .result('c3', { hash: 'same' })
      .build();
    assert.deepEqual(callIds(analyze(issued)[0]), ['c1', 'c2', 'c3']);
  });

  it('leaves out calls whose arguments did not parse: they are no action', () => {
    const broken = (id: string) => ({ id, name: 'write_file', argsError: 'Unexpected end of JSON input' });
    const t = run({ status: 'failed' }).toolCalls(broken('c1')).toolCalls(broken('c2')).toolCalls(broken('c3')).build();
    assert.deepEqual(analyze(t), []);
  });

  it('fires on the first call with a threshold of 1 and a window of 1, one episode per run of calls', () => {
    const findings = analyze(loop([A, A, { name: 'list_dir' }]), { window: 1, threshold: 1 });
    assert.deepEqual(findings.map(callIds), [['c1', 'c2'], ['c3']]);
    assert.match(findings[0]?.message ?? '', /repeated 2 times .*threshold 1 in a window of 1 tool calls/);
  });
});

describe('repeated actions: results without an identity', () => {
  it('a result without a hash is no progress, even after the action returned something else', () => {
    // x is the first result; the two results without identity show nothing new.
    const findings = analyze(
      loop([
        { ...A, hash: 'x' },
        { ...A, hash: null },
        { ...A, hash: null },
      ]),
    );
    assert.deepEqual(findings.map(callIds), [['c1', 'c2', 'c3']]);
  });

  it('a result without a hash is not a result to differ from: the first hashed result after it is no progress', () => {
    // c2's x is the first result the action returned; only c3 (also x) could tell, and it is the same.
    const findings = analyze(
      loop([
        { ...A, hash: null },
        { ...A, hash: 'x' },
        { ...A, hash: 'x' },
      ]),
    );
    assert.deepEqual(findings.map(callIds), [['c1', 'c2', 'c3']]);
  });
});

describe('repeated actions: cost details', () => {
  const repeat = (usage: { inputTokens?: number; outputTokens?: number; step?: null }): RunTimeline => {
    const builder = run({ status: 'failed' });
    for (const id of ['c1', 'c2', 'c3']) builder.response({ calls: [{ id, ...A }], ...usage }).result(id, { hash: 'same' });
    return builder.build();
  };

  it('counts the tokens of turns that record only input tokens', () => {
    const [f] = analyze(repeat({ inputTokens: 400 }));
    assert.equal(f?.details?.['tokens'], 3 * 400);
    assert.match(f?.message ?? '', /3 tool calls over 3 turns and 1,200 tokens$/);
  });

  it('counts the tokens of turns that record only output tokens', () => {
    const [f] = analyze(repeat({ outputTokens: 70 }));
    assert.equal(f?.details?.['tokens'], 3 * 70);
  });

  it('counts no turn and no tokens for calls whose step is unknown', () => {
    const [f] = analyze(repeat({ inputTokens: 400, outputTokens: 70, step: null }));
    assert.equal(f?.details?.['tool_calls'], 3);
    assert.equal(f?.details?.['turns'], 0);
    assert.equal(f?.details?.['tokens'], null);
    assert.match(f?.message ?? '', /cost 3 tool calls over 0 turns$/);
  });

  it('names the tool with empty parentheses when the arguments have no summary', () => {
    const t = edited(loop([A, A, A]), (entries) => {
      for (const entry of entries) if (entry.kind === 'response') for (const call of entry.calls) call.argsSummary = null;
    });
    const [f] = analyze(t);
    assert.match(f?.message ?? '', /^read_file\(\) was repeated 3 times/);
    assert.equal(f?.details?.['arguments'], null);
  });
});

describe('repeated actions: order of the findings', () => {
  it('lists episodes by the line where they first fired, even when a later one ends first', () => {
    // Window 4, threshold 2: A fires at c3, B at c4; B's calls leave the window at c6 (its episode
    // ends there) while A keeps firing to the end of the run.
    const B: Act = { name: 'list_dir', args: { path: '.' } };
    const findings = analyze(loop([A, B, A, B, A, A, A]), { window: 4, threshold: 2 });
    assert.deepEqual(
      findings.map((f) => [f.call_id, callIds(f)]),
      [
        ['c3', ['c1', 'c3', 'c5', 'c6', 'c7']],
        ['c4', ['c2', 'c4']],
      ],
    );
  });
});
