/** A tool result's identity for repeated-action progress (docs/semantics.md §6), as ingest computes it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NORMALIZED_RESULT_CHARS } from '../../../shared/analysis/volatileFields';
import { resultIdentity } from '../../../src-main/engine/bytes/resultIdentity';

const storm = (requestId: string, at: string): string =>
  JSON.stringify({ code: 'RATE_LIMITED', message: `rate limit reached at ${at} (request ${requestId})` });

describe('result identity', () => {
  it('is the same for errors that differ only by request id and timestamp, from the line bytes or from the event', () => {
    const first = storm('req_7c1e9a3b5d2f48e0a6b4c8d2e1f3a5b7', '2025-06-05T09:12:01.912Z');
    const second = storm('req_0b4d2f6a8c1e47b3a9d5f7c2e4b6a8d0', '2025-06-05T09:12:04.377Z');
    assert.equal(resultIdentity(true, '', first), resultIdentity(true, '', second));
    assert.equal(resultIdentity(true, Buffer.alloc(0), Buffer.from(first)), resultIdentity(true, Buffer.alloc(0), Buffer.from(second)));
  });

  it('differs when the status, a counter or the content differs', () => {
    const output = '{"status":"running","processed":41}';
    assert.notEqual(resultIdentity(true, output, ''), resultIdentity(false, output, ''));
    assert.notEqual(resultIdentity(false, output, ''), resultIdentity(false, output.replace('41', '42'), ''));
    assert.notEqual(resultIdentity(false, '"packed"', ''), resultIdentity(false, '"shipped"', ''));
  });

  it('compares a result longer than the normalized limit as written: a changed timestamp in it is a change', () => {
    const body = 'x'.repeat(NORMALIZED_RESULT_CHARS);
    const at = (time: string): string => `${body} checked at 2025-06-05T${time}Z`;
    assert.notEqual(resultIdentity(false, at('09:12:01'), ''), resultIdentity(false, at('09:12:04'), ''));
    assert.equal(resultIdentity(false, at('09:12:01'), ''), resultIdentity(false, Buffer.from(at('09:12:01')), ''));
  });
});
