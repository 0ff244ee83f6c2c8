/** Format detection: each file is read with the adapter that recognises it, or refused with the formats tried. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openTrace, TraceFileError } from '../src-main/engine/engine';
import { formatNames } from '../src-main/engine/adapters/registry';
import { analyzeFile, defaultAnalysis, temporaryDir } from './support/engineHarness';

describe('format detection', () => {
  const dir = temporaryDir('formats');
  after(() => dir.remove());

  it('names the format of a Loopscope trace and why', async () => {
    const { report } = await analyzeFile(join(import.meta.dirname, '..', 'examples', 'normal-query.jsonl'));
    assert.equal(report.files[0]?.format, 'loopscope');
    assert.match(report.files[0]?.format_reason ?? '', /^\d+ of the first \d+ records are Loopscope events \(run_start, model_request/);
  });

  it('refuses a file no adapter recognises with one error listing the formats tried, not a wall of parse errors', async () => {
    const path = join(dir.path, 'other.jsonl');
    writeFileSync(path, '{"kind":"metric","value":1}\n{"kind":"metric","value":2}\nnot json\n');
    const cache = temporaryDir('formats-cache');
    try {
      await assert.rejects(openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis }), (error: unknown) => {
        assert.ok(error instanceof TraceFileError);
        assert.equal(error.code, 'unknown_format');
        assert.ok(error.message.includes(`no known trace format (tried ${formatNames().join(', ')}); the file has 2 JSON records in its first lines`), error.message);
        return true;
      });
    } finally {
      cache.remove();
    }
  });

  it('reads a file as the format the user names, whatever detection would say', async () => {
    const path = join(dir.path, 'forced.jsonl');
    writeFileSync(path, '{"kind":"metric"}\n{"type":"run_start","run_id":"r"}\n');
    const { report } = await analyzeFile(path, { format: 'loopscope' });
    assert.equal(report.files[0]?.format_reason, 'chosen with --format');
    assert.deepEqual(report.files[0]?.parse_errors.map((e) => e.line), [1]);
  });
});
