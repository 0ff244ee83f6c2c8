/** Format detection: each file is read with the adapter that recognises it, or refused with the formats tried. */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import { openTrace, TraceFileError } from '../../../src-main/engine/engine';
import { formatNames } from '../../../src-main/engine/adapters/registry';
import { analyzeFile, defaultAnalysis, temporaryDir } from '../../support/engineHarness';
import { callLatencies } from '../../support/formatTests';
import { examplesDir } from '../../../devkit/repoPaths';

describe('format detection', () => {
  const dir = temporaryDir('formats');
  after(() => dir.remove());

  it('names the format of a Loopscope trace and why', async () => {
    const { report } = await analyzeFile(join(examplesDir, 'normal-query.jsonl'));
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
        assert.ok(
          error.message.includes(`no known trace format (tried ${formatNames().join(', ')}); the file has 2 JSON records in its first lines`),
          error.message,
        );
        return true;
      });
    } finally {
      cache.remove();
    }
  });

  it('says what a file it cannot read is: empty, blank, compressed, UTF-16, an image, binary', async () => {
    const trace = '{"type":"run_start","run_id":"r"}\n{"type":"run_end","run_id":"r","status":"completed"}\n';
    const cases: [string, Buffer, RegExp][] = [
      ['empty.jsonl', Buffer.alloc(0), /the file is empty: it has no records yet/],
      ['blank.jsonl', Buffer.from('\n\n   \n\t\n'), /the file has only blank lines/],
      ['trace.jsonl.gz', gzipSync(trace), /gzip-compressed: decompress it first \(gunzip -k FILE\)/],
      ['utf16.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(trace, 'utf16le')]), /UTF-16 text: Loopscope reads UTF-8/],
      ['screenshot.jsonl', Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]), /a PNG image, not a trace/],
      ['blob.bin', Buffer.from([0x01, 0x00, 0x02, 0x00, 0x7b, 0x7d]), /binary \(it has NUL bytes in its first 4 KiB\)/],
    ];
    const cache = temporaryDir('formats-cache');
    try {
      for (const [name, bytes, reason] of cases) {
        const path = join(dir.path, name);
        writeFileSync(path, bytes);
        await assert.rejects(openTrace(path, { cacheDir: cache.path, analysis: defaultAnalysis }), (error: unknown) => {
          assert.ok(error instanceof TraceFileError, name);
          assert.equal(error.code, 'unknown_format', name);
          assert.match(error.message, reason, name);
          assert.ok(error.message.includes(path), `${name}: the message names the file`);
          return true;
        });
      }
    } finally {
      cache.remove();
    }
  });

  it('reads Loopscope events written as one JSON document (an array, or pretty-printed) as it reads them one a line', async () => {
    const events = readFileSync(join(examplesDir, 'dangling-call.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as unknown);
    const files = {
      lines: events.map((event) => JSON.stringify(event)).join('\n') + '\n',
      array: JSON.stringify(events, null, 2),
      pretty: events.map((event) => JSON.stringify(event, null, 2)).join('\n'),
    };
    const read = async (name: keyof typeof files) => {
      const path = join(dir.path, `document-${name}.json`);
      writeFileSync(path, files[name]);
      return (await analyzeFile(path)).report;
    };
    const summary = (report: Awaited<ReturnType<typeof read>>) => ({
      events: report.files[0]?.events,
      parseErrors: report.files[0]?.parse_errors.length,
      runs: report.runs.map((run) => [run.run_id, run.status, run.steps, run.tool_calls, run.tool_results]),
      findings: report.findings.map((finding) => [finding.kind, finding.severity, finding.call_id]),
    });
    const lines = await read('lines');
    assert.equal(lines.files[0]?.format, 'loopscope');
    for (const name of ['array', 'pretty'] as const) {
      const report = await read(name);
      assert.equal(report.files[0]?.format, 'loopscope-json', name);
      assert.deepEqual(summary(report), summary(lines), name);
    }
    assert.ok(
      summary(lines).findings.some(([kind]) => kind === 'dangling_call'),
      'the example keeps its finding',
    );
  });

  it('times calls the same in a JSON document of Loopscope events as in the JSONL: recorded, from tool_call_start, or not recorded', async () => {
    const example = join(examplesDir, 'latency-sources.jsonl');
    const events = readFileSync(example, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const path = join(dir.path, 'latency-sources.json');
    writeFileSync(path, JSON.stringify(events, null, 2));
    const expected: [string, number | null][] = [
      ['call_lat_search', 287],
      ['call_lat_order', 1234],
      ['call_lat_shipment', null],
    ];
    assert.deepEqual(await callLatencies(example, 'loopscope'), expected);
    assert.deepEqual(await callLatencies(path, 'loopscope-json'), expected);
  });

  it('reads a file as the format the user names, whatever detection would say', async () => {
    const path = join(dir.path, 'forced.jsonl');
    writeFileSync(path, '{"kind":"metric"}\n{"type":"run_start","run_id":"r"}\n');
    const { report } = await analyzeFile(path, { format: 'loopscope' });
    assert.equal(report.files[0]?.format_reason, 'chosen with --format');
    assert.deepEqual(
      report.files[0]?.parse_errors.map((e) => e.line),
      [1],
    );
  });
});
