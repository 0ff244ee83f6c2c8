/**
 * Which response a run ended on (docs/semantics.md §1.4), through the real engine: the response its
 * `run_end.output` repeats — found at ingest, streams included — or else the last one.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeFile, temporaryDir } from '../../support/engineHarness';

const cutText = 'Your order contains the Ridge tent. Care: dry it fully before storing and never use deter';
const fullText = 'Your order contains the Ridge tent. Care: dry it fully before storing and never use detergents.';

function response(step: number, finishReason: string, text: string): object {
  return { type: 'model_response', run_id: 'r', step, finish_reason: finishReason, text };
}

describe('incomplete answers accepted as success, through the engine', () => {
  const dir = temporaryDir('incomplete-answers');
  after(() => dir.remove());

  async function findings(name: string, events: object[], options: { searchIndex?: boolean } = {}): Promise<string[]> {
    const file = join(dir.path, `${name}.jsonl`);
    writeFileSync(file, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`);
    const { report } = await analyzeFile(file, options);
    return report.findings.map((f) => `${f.kind} ${f.severity} step=${f.step} line=${f.line}`);
  }

  it('reports a run whose output repeats a cut answer, even though a complete answer came after it', async () => {
    const result = await findings('repeats-cut', [
      { type: 'run_start', run_id: 'r' },
      response(1, 'length', cutText),
      response(2, 'stop', 'Anything else I can help with?'),
      { type: 'run_end', run_id: 'r', status: 'succeeded', output: { answer: cutText } },
    ]);
    assert.deepEqual(result, ['truncated_response warning step=1 line=2', 'incomplete_answer_accepted error step=1 line=4']);
  });

  it('keeps only the warning when the output repeats the complete retry, even if it also contains the cut text', async () => {
    const stitched = await findings('stitched', [
      { type: 'run_start', run_id: 'r' },
      response(1, 'length', cutText),
      response(2, 'stop', 'gents, and let it air once a season.'),
      { type: 'run_end', run_id: 'r', status: 'succeeded', output: `${cutText}gents, and let it air once a season.` },
    ]);
    assert.deepEqual(stitched, ['truncated_response warning step=1 line=2']);
    const retried = await findings('retried', [
      { type: 'run_start', run_id: 'r' },
      response(1, 'length', cutText),
      response(2, 'stop', fullText),
      { type: 'run_end', run_id: 'r', status: 'model_finished', output: fullText },
    ]);
    assert.deepEqual(retried, ['truncated_response warning step=1 line=2']);
  });

  // Without the search index too, as the CLI reads: the stream's text is kept for the output all the same.
  for (const searchIndex of [true, false]) {
    it(`reports a run that ends succeeded with the text of a stream that broke (search index ${searchIndex ? 'built' : 'off'})`, async () => {
      const result = await findings(
        `broken-stream-${searchIndex}`,
        [
          { type: 'run_start', run_id: 'r' },
          { type: 'stream_fragment', run_id: 'r', step: 1, text_delta: 'Your order contains the Ridge tent. ' },
          { type: 'stream_fragment', run_id: 'r', step: 1, text_delta: 'Care: dry it fully before' },
          response(2, 'stop', 'Anything else I can help with?'),
          { type: 'run_end', run_id: 'r', status: 'succeeded', output: 'Your order contains the Ridge tent. Care: dry it fully before' },
        ],
        { searchIndex },
      );
      assert.deepEqual(result, ['incomplete_response warning step=1 line=3', 'incomplete_answer_accepted error step=1 line=5']);
    });
  }
});
