/**
 * A run received over OpenTelemetry shows in the library while it goes on: its spans so far, its
 * status `running` (its unanswered calls pending, not dangling) until its root span arrives, then
 * what the finished run says; or, when the root never comes, `unterminated` once the file has not
 * grown for the idle time. Real parts: the spans the OpenTelemetry JS SDK serializes, a library
 * directory indexed and followed by a real API host.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { genAiAgentRunCanonical, genAiAgentRunIds, writeGenAiAgentRunOtlpJson } from '../../devkit/otel/genAiAgentRun';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';

type LibraryRun = ApiResponse<'libraryRuns'>['rows'][number];

const hosts: TestHost[] = [];
const dirs: { remove(): void }[] = [];

after(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  for (const dir of dirs) dir.remove();
});

/** The run's OTLP lines, one span each in the order they were exported: the root agent's span last. */
async function exportedLines(): Promise<string[]> {
  const scratch = temporaryDir('live-otlp-spans');
  dirs.push(scratch);
  const file = join(scratch.path, 'spans.jsonl');
  await writeGenAiAgentRunOtlpJson(file);
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const last = JSON.parse(lines.at(-1)!) as { resourceSpans: { scopeSpans: { spans: { parentSpanId?: string }[] }[] }[] };
  assert.ok(!last.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.parentSpanId, 'the root span is exported last');
  return lines;
}

/** The root run as the library lists it, once `wanted` holds, asking every 100 ms for at most 60 s. */
async function rootRunWhen(host: TestHost, wanted: (run: LibraryRun) => boolean): Promise<LibraryRun> {
  const deadline = Date.now() + 60_000;
  let last: LibraryRun | undefined;
  for (;;) {
    // Until the library database exists, the query is refused: asked again.
    const page = (await host.host.call('libraryRuns', { limit: 100 }).catch(() => null)) as ApiResponse<'libraryRuns'> | null;
    last = page?.rows.find((row) => row.runId === genAiAgentRunIds.rootRunId);
    if (last !== undefined && wanted(last)) return last;
    if (Date.now() > deadline) assert.fail(`the root run did not get there: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function libraryOf(lines: readonly string[], idleAfterMs: number): { host: TestHost; file: string } {
  const dir = temporaryDir('live-otlp-library');
  dirs.push(dir);
  const file = join(dir.path, 'received.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const host = startTestHost({ library: { roots: [dir.path], rescanMs: 200 }, idleAfterMs });
  hosts.push(host);
  return { host, file };
}

const finalStatus = (): string => {
  const end = genAiAgentRunCanonical()
    .map((line) => JSON.parse(line) as { type: string; run_id?: string; status?: string })
    .find((event) => event.type === 'run_end' && event.run_id === genAiAgentRunIds.rootRunId);
  assert.ok(end?.status !== undefined, 'the canonical twin ends the root run');
  return end.status;
};

describe('a run received over OTLP, live in the library', () => {
  it('is running with its spans so far until its root span arrives, then is what the finished run says', async () => {
    const lines = await exportedLines();
    const { host, file } = libraryOf(lines.slice(0, -1), 60_000);
    const live = await rootRunWhen(host, (run) => run.status === 'running');
    assert.ok(live.steps > 0, 'the model calls received so far are shown');
    assert.ok(live.toolCalls > 0, 'the tool calls received so far are shown');
    assert.ok(!live.findingKinds.includes('dangling_call'), 'an unanswered call of a running run is pending, not dangling');

    appendFileSync(file, `${lines.at(-1)}\n`);
    const finished = await rootRunWhen(host, (run) => run.status !== 'running');
    assert.equal(finished.status, finalStatus());
    assert.ok(finished.findingKinds.includes('dangling_call'), 'once the run has ended, the call that never got a result is dangling');
    assert.ok(finished.steps >= live.steps);
  });

  it('becomes unterminated when its root span never comes and the file stops growing', async () => {
    const lines = await exportedLines();
    const { host } = libraryOf(lines.slice(0, -1), 4000);
    await rootRunWhen(host, (run) => run.status === 'running');
    const ended = await rootRunWhen(host, (run) => run.status !== 'running');
    assert.equal(ended.status, 'unterminated');
  });
});
