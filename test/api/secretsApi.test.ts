/**
 * Credentials through the API host over the real engine and query worker: every answer a view
 * reads — a run, its timeline rows and their calls, an event's record, a raw line, findings, parse
 * errors, search hits — carries them masked, and the app's database (with its full-text index)
 * holds none; only `event` with `revealSecrets` returns the record as written, for that event.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../../shared/api';
import { startTestHost, type TestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';
import { assertHoldsNone, fakeSecrets, secretTrace } from '../support/fakeSecrets';

const trace = secretTrace();

/** As JSON, an answer writes a credential as the trace did (`written`, JSON-escaped). */
function assertMasked(what: string, answer: unknown): void {
  assertHoldsNone(what, typeof answer === 'string' ? answer : JSON.stringify(answer), trace.written);
}

describe('API host: credentials are masked in every answer', () => {
  let t: TestHost;
  let traceId: string;
  let runPk: number;
  let events: ApiResponse<'runEvents'>;
  const work = temporaryDir('secrets-api');
  const call = async <T>(method: string, request: Record<string, unknown>): Promise<T> => (await t.host.call(method, { traceId, ...request })) as T;

  before(async () => {
    t = startTestHost();
    const path = join(work.path, 'leaky.jsonl');
    writeFileSync(path, trace.text);
    const summary = await t.openSettled(path);
    assert.equal(summary.state, 'ready', summary.error ?? '');
    traceId = summary.traceId;
    const runs = await call<ApiResponse<'runs'>>('runs', {});
    runPk = runs.rows[0]!.runPk;
    assert.deepEqual(runs.rows[0]?.findingKinds.includes('secret_in_trace'), true);
    events = await call<ApiResponse<'runEvents'>>('runEvents', { runPk });
  });

  after(async () => {
    await t.close();
    work.remove();
  });

  const eventOnLine = (line: number): number => events.rows.find((row) => row.line === line)?.eventId ?? assert.fail(`no event on line ${line}`);

  it('a run and its timeline rows (summaries) and calls (arguments)', async () => {
    assertMasked('run', await call('run', { runPk }));
    assertMasked('runEvents', events);
    const response = events.rows.find((row) => row.line === 3);
    assert.match(response?.summary ?? '', /"token":"ghp_…•••• \[github/);
    assert.match(events.calls.find((c) => c.callId === 'call_1')?.argsSummary ?? '', /ghp_…•••• \[github token masked\]/);
    assertMasked('calls', await call('calls', {}));
  });

  it('an event: its record from the file, masked, still a JSON document', async () => {
    const detail = await call<ApiResponse<'event'>>('event', { eventId: eventOnLine(2) });
    assertMasked('event', detail);
    const record = JSON.parse(detail.record?.text ?? 'null') as { messages: { content: string }[] };
    assert.match(
      record.messages[0]?.content ?? '',
      /^Use sk-proj-…•••• \[openai key masked\] and this key:\n-----BEGIN RSA PRIVATE KEY…•••• \[private key masked\]$/,
    );
    assert.deepEqual(
      detail.findings.map((f) => f.kind),
      ['secret_in_trace', 'secret_in_trace'],
    );
  });

  it('revealSecrets returns that event as written, and only when asked', async () => {
    const eventId = eventOnLine(1);
    const revealed = await call<ApiResponse<'event'>>('event', { eventId, revealSecrets: true });
    assert.ok(revealed.record?.text.includes(fakeSecrets.anthropic_api_key));
    const again = await call<ApiResponse<'event'>>('event', { eventId });
    assertMasked('the same event asked again without revealSecrets', again);
    assertMasked('rawLine, which has no reveal', await call('rawLine', { sourceId: revealed.event.sourceId, line: 1, revealSecrets: true }));
  });

  it('findings, parse errors and the raw line of a line that is not JSON', async () => {
    const findings = await call<ApiResponse<'findings'>>('findings', { kind: 'secret_in_trace' });
    assert.equal(findings.total, trace.written.length);
    assertMasked('findings', findings);
    const outside = findings.rows.filter((f) => f.runPk === null);
    assert.deepEqual(
      outside.map((f) => [f.line, f.runId, f.eventId]),
      [[trace.parseErrorLine, null, null]],
    );
    const parseErrors = await call<ApiResponse<'parseErrors'>>('parseErrors', {});
    assert.match(parseErrors.rows[0]?.excerpt ?? '', /STRIPE=sk_live_…•••• \[stripe key masked\] \(not JSON\)/);
    assertMasked('rawLine', await call('rawLine', { sourceId: parseErrors.rows[0]!.sourceId, line: trace.parseErrorLine }));
  });

  it('search: hits show masked text, and a credential is not in the index to be found', async () => {
    const hits = await call<ApiResponse<'search'>>('search', { query: 'Calling maps' });
    assert.equal(hits.total, 1);
    assert.match(hits.rows[0]?.snippet ?? '', /AIza…•••• \[google key masked\]/);
    for (const secret of [fakeSecrets.google_api_key, fakeSecrets.huggingface_token]) {
      assert.equal((await call<ApiResponse<'search'>>('search', { query: secret.slice(0, 20) })).total, 0, `${secret.slice(0, 8)}… is not searchable`);
    }
  });

  it('the database the app built, full-text index included, holds none of them', () => {
    const files = readdirSync(t.cacheDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    const bytes = Buffer.concat(files.map((file) => readFileSync(join(file.parentPath, file.name))));
    assert.ok(bytes.includes(Buffer.from('[google key masked]')), 'the masked text is what was stored');
    assertMasked('the database', bytes.toString('latin1'));
  });
});
