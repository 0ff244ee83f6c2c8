/**
 * A trace reopened from its cache by a new API host (the app started again): it is ready as soon as
 * the cache is found (its summary read without the query worker), with the format and counts of
 * its first reading, and answers the same runs, masked the same way.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ApiResponse, TraceSummary } from '../../shared/api';
import { startTestHost } from '../support/apiHarness';
import { temporaryDir } from '../support/engineHarness';
import { assertHoldsNone, secretTrace } from '../support/fakeSecrets';

const trace = secretTrace();

describe('API host: a trace reopened from its cache', () => {
  const work = temporaryDir('reopen-api');
  const cacheDir = join(work.path, 'cache');
  const path = join(work.path, 'leaky.jsonl');
  writeFileSync(path, trace.text);
  after(() => work.remove());

  it('is ready with the counts of its first reading and answers the same runs', async () => {
    const first = startTestHost({ cacheDir });
    let read: TraceSummary;
    let firstRuns: ApiResponse<'runs'>;
    try {
      read = await first.openSettled(path);
      assert.equal(read.state, 'ready', read.error ?? '');
      firstRuns = (await first.host.call('runs', { traceId: read.traceId, limit: 50 })) as ApiResponse<'runs'>;
    } finally {
      await first.close();
    }

    const updates: TraceSummary[] = [];
    const again = startTestHost({ cacheDir, onTraceUpdate: (summary) => updates.push(summary) });
    try {
      const reopened = await again.openSettled(path);
      assert.deepEqual(
        [reopened.state, reopened.reused, reopened.format, reopened.progress],
        ['ready', true, read.format, read.progress],
        'the reopened trace reports the counts of its first reading',
      );
      assert.deepEqual(
        updates.map((summary) => summary.state),
        ['ingesting', 'ready'],
        'the page sees no other state between opening and ready',
      );
      const reopenedRuns = await again.host.call('runs', { traceId: reopened.traceId, limit: 50 });
      assert.deepEqual(reopenedRuns, firstRuns);
      assertHoldsNone('the runs of a reopened trace', JSON.stringify(reopenedRuns), trace.written);
    } finally {
      await again.close();
    }
  });
});
