/**
 * A mutated copy of a clean trace gives exactly the new findings and parse errors the mutation
 * implies — through the built CLI (`loopscope analyze --json`), so `npm run build` first.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { AnalyzeReport } from '../../shared/report';
import { analyzeJson } from '../support/cli';
import { temporaryDir } from '../support/engineHarness';
import { examplesDir } from '../../devkit/repoPaths';

/**
 * examples/normal-query.jsonl, 1-based lines:
 *   3 model_response step 1 → call_C3J… (get_order)   4 tool_call_start   5 tool_result
 *   7 model_response step 2 → call_m4p… (get_shipment) 8 tool_call_start   9 tool_result
 */
const GET_ORDER = 'call_C3J27XDCG2LmlZGEONYlgCtj';
const GET_SHIPMENT = 'call_m4pMbXDuCL1mHoOsFaQfDPrA';

const original = readFileSync(join(examplesDir, 'normal-query.jsonl'), 'utf8');
const originalLines = original.endsWith('\n') ? original.slice(0, -1).split('\n') : original.split('\n');

let dir: { path: string; remove: () => void };
let cache: { path: string; remove: () => void };

beforeEach(() => {
  dir = temporaryDir('mutation');
  cache = temporaryDir('mutation-cache');
});

afterEach(() => {
  dir.remove();
  cache.remove();
});

function lineAt(lines: readonly string[], line: number): string {
  const text = lines[line - 1];
  assert.ok(text !== undefined, `line ${line} exists`);
  return text;
}

function eventType(text: string): unknown {
  return (JSON.parse(text) as { type?: unknown }).type;
}

/** Writes the mutated lines as a trace and analyzes it with the CLI. */
function analyzeMutated(lines: readonly string[]): AnalyzeReport {
  const file = join(dir.path, 'normal-query.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const { result, report } = analyzeJson(['--fail-on', 'never', file], { cacheDir: cache.path });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(report.files.length, 1);
  return report;
}

function findingSet(report: AnalyzeReport): string[] {
  return report.findings.map((f) => `${f.kind} ${f.call_id} ${f.severity}`).sort();
}

function parseErrorLines(report: AnalyzeReport): number[] {
  return report.files[0]!.parse_errors.map((e) => e.line);
}

describe('mutations of normal-query.jsonl', () => {
  it('the unmutated copy has no findings and no parse errors', () => {
    assert.equal(eventType(lineAt(originalLines, 3)), 'model_response');
    assert.equal(eventType(lineAt(originalLines, 5)), 'tool_result');
    assert.equal(eventType(lineAt(originalLines, 7)), 'model_response');
    assert.equal(eventType(lineAt(originalLines, 9)), 'tool_result');
    const report = analyzeMutated(originalLines);
    assert.deepEqual(findingSet(report), []);
    assert.deepEqual(parseErrorLines(report), []);
  });

  it('deleting a tool_result leaves its call dangling, nothing else', () => {
    const lines = originalLines.filter((_, index) => index + 1 !== 9);
    const report = analyzeMutated(lines);
    assert.deepEqual(findingSet(report), [`dangling_call ${GET_SHIPMENT} error`]);
    assert.deepEqual(parseErrorLines(report), []);
    const finding = report.findings[0]!;
    assert.equal(finding.step, 2);
    assert.equal(finding.line, 7, 'anchored at the response that issued the call');
    assert.equal(report.runs[0]?.tool_results, 1);
  });

  it('cutting a tool_result line in half is a parse error at that line, and its call dangles', () => {
    const lines = [...originalLines];
    const whole = lineAt(lines, 5);
    lines[4] = whole.slice(0, Math.floor(whole.length / 2));
    const report = analyzeMutated(lines);
    assert.deepEqual(parseErrorLines(report), [5]);
    const error = report.files[0]!.parse_errors[0]!;
    assert.match(error.message, /not valid JSON/);
    assert.equal(error.loaded, false);
    assert.equal(
      error.offset,
      Buffer.byteLength(
        lines
          .slice(0, 4)
          .map((l) => `${l}\n`)
          .join(''),
      ),
      'byte offset of line 5',
    );
    assert.deepEqual(findingSet(report), [`dangling_call ${GET_ORDER} error`]);
    assert.equal(report.files[0]!.lines, 12);
    assert.equal(report.files[0]!.events, 11);
  });

  it('changing the call_id of a tool_result gives an orphan result and a dangling call', () => {
    const lines = [...originalLines];
    const event = JSON.parse(lineAt(lines, 5)) as { call_id: string };
    assert.equal(event.call_id, GET_ORDER);
    event.call_id = 'call_NOT_ISSUED_0000000000';
    lines[4] = JSON.stringify(event);
    const report = analyzeMutated(lines);
    assert.deepEqual(findingSet(report), [`dangling_call ${GET_ORDER} error`, 'orphan_result call_NOT_ISSUED_0000000000 error']);
    assert.deepEqual(parseErrorLines(report), []);
    assert.equal(report.findings.find((f) => f.kind === 'orphan_result')?.line, 5);
  });

  it('duplicating a tool_result line gives a duplicate result', () => {
    const lines = [...originalLines.slice(0, 9), lineAt(originalLines, 9), ...originalLines.slice(9)];
    const report = analyzeMutated(lines);
    assert.deepEqual(findingSet(report), [`duplicate_result ${GET_SHIPMENT} error`]);
    assert.deepEqual(parseErrorLines(report), []);
    assert.equal(report.findings[0]?.line, 10, 'anchored at the second copy');
  });

  it('swapping a model_response with the later tool_result of its call gives an out-of-order result', () => {
    const lines = [...originalLines];
    lines[6] = lineAt(originalLines, 9);
    lines[8] = lineAt(originalLines, 7);
    assert.equal(eventType(lineAt(lines, 7)), 'tool_result');
    assert.equal(eventType(lineAt(lines, 9)), 'model_response');
    const report = analyzeMutated(lines);
    assert.deepEqual(findingSet(report), [`out_of_order_result ${GET_SHIPMENT} warning`]);
    assert.deepEqual(parseErrorLines(report), []);
    assert.equal(report.findings[0]?.step, 2);
  });
});
