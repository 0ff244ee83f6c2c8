/** Volatile fields of a tool result (docs/semantics.md §6): what two results may differ in and still be the same result. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutVolatileFields } from '../../../shared/analysis/volatileFields';

const same = (a: string, b: string): void => assert.equal(withoutVolatileFields(a), withoutVolatileFields(b), `${a}\n${b}`);
const different = (a: string, b: string): void => assert.notEqual(withoutVolatileFields(a), withoutVolatileFields(b), `${a}\n${b}`);

describe('volatile fields: ignored', () => {
  it('ISO 8601 timestamps, with or without fraction and zone', () => {
    same('rate limited at 2025-06-04T07:58:42.677Z, retry later', 'rate limited at 2025-06-04T07:59:13.102Z, retry later');
    same('{"error":"busy","at":"2025-06-04 07:58:42+02:00"}', '{"error":"busy","at":"2025-06-05 01:00:00+02:00"}');
  });

  it('times of day in log prefixes and HTTP dates', () => {
    same('[07:58:42] ERROR upstream timeout', '[07:59:01] ERROR upstream timeout');
    same('Date: Wed, 04 Jun 2025 07:58:42 GMT', 'Date: Wed, 04 Jun 2025 07:58:51 GMT');
  });

  it('request ids: UUIDs, provider-style ids and the value of a request/trace id key', () => {
    same('502 Bad Gateway (request 3f2b8c1e-9d4a-4e5f-8a7b-6c5d4e3f2a1b)', '502 Bad Gateway (request 9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d)');
    same('overloaded_error: Overloaded (req_011CY15QS2LGwAeBxdfa6e1V)', 'overloaded_error: Overloaded (req_011CY16AB7KqPdYz3RtUv9Wx)');
    same('{\\"error\\":\\"throttled\\",\\"request_id\\":\\"7f3a22b1\\"}', '{\\"error\\":\\"throttled\\",\\"request_id\\":\\"a91c0e55\\"}');
    same('Service unavailable. Request ID: 4KQ9-ZX12-77', 'Service unavailable. Request ID: 8TT1-AA03-19');
    same('"traceId": "4bf92f3577b34da6a3ce929d0e0e4736"', '"traceId": "00f067aa0ba902b7a3ce929d0e0e4736"');
  });

  it('epoch timestamps under a time-named key', () => {
    same('{"status":"pending","timestamp":1749023922}', '{"status":"pending","timestamp":1749023987}');
    same('checked_at=1749023922677 status=pending', 'checked_at=1749023999001 status=pending');
  });
});

describe('volatile fields: kept (real progress stays visible)', () => {
  it('counters and other numbers', () => {
    different('{"status":"running","processed":41}', '{"status":"running","processed":42}');
    different('3 failed, 12 passed', '2 failed, 13 passed');
    different('page 2 of 9', 'page 3 of 9');
  });

  it('durations, content hashes and content', () => {
    different('estimated 5 min remaining', 'estimated 3 min remaining');
    different(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  out.bin',
      'a665a45920422f9d417e4867efdc4fb8a04a1f3fff1fa07e998e86f7f7a27ae3  out.bin',
    );
    different('status: in_transit at Leipzig hub', 'status: out_for_delivery at Hamburg depot');
  });

  it('a plain number after an id key without a digit-bearing value, and words after "trace"', () => {
    different('trace the call in module alpha', 'trace the call in module beta');
    different('{"timestamp": "unknown", "count": 1}', '{"timestamp": "unknown", "count": 2}');
  });

  it('a UUID-shaped run of letters a–f, which has no version digit: content, not a request id', () => {
    different('label abcdefab-abcd-abcd-abcd-abcdefabcdef', 'label fedcbafe-dcba-dcba-dcba-fedcbafedcba');
  });

  it('a date without a time of day', () => {
    different('eta 2025-06-04', 'eta 2025-06-05');
  });

  it('leaves a text without any digit as it is', () => {
    assert.equal(withoutVolatileFields('no digits here: request id abc'), 'no digits here: request id abc');
  });
});

describe('volatile fields: the forms each rule reads', () => {
  it('date-times without seconds, without a zone, with a zone written either way, and years far apart', () => {
    same('at 2025-06-04T07:58Z', 'at 2025-06-04T08:01Z');
    same('started 2025-06-04T07:58:42 ok', 'started 2025-06-05T01:00:00 ok');
    same('at 2025-06-04T07:58:42+02:00 ok', 'at 2025-06-04T07:58:43-05:30 ok');
    same('at 2025-06-04T07:58:42+0200 ok', 'at 2025-06-04T07:58:43+0530 ok');
    same('valid from 2019-12-31T23:59:59Z', 'valid from 2020-01-01T00:00:00Z');
  });

  it('times of day with a one-digit hour, and with a fraction after a comma', () => {
    same('[7:58:42] retry', '[8:01:13] retry');
    same('07:58:42,123 WARN busy', '07:59:01,456 WARN busy');
  });

  it('epoch times with spaces around the separator, in quotes, or with a fraction', () => {
    same('{"timestamp": 1749023922}', '{"timestamp": 1749023987}');
    same('ts = 1749023922 pending', 'ts = 1749023999 pending');
    same('{"ts":"1749023922"}', '{"ts":"1749023987"}');
    same('time=1749023922.123 pending', 'time=1749023922.456 pending');
  });

  it('provider-style ids whose first digit comes after letters', () => {
    same('Overloaded (msg_AbCdEfGh12)', 'Overloaded (msg_XyZwVuTs34)');
  });

  it('the value after a request id key written without a separator', () => {
    same('Request ID 4KQ9-ZX12-77 failed', 'Request ID 8TT1-AA03-19 failed');
  });
});

describe('volatile fields: one placeholder', () => {
  it('replaces every kind of volatile value by the same placeholder', () => {
    same('busy (2025-06-04T07:58:42Z)', 'busy (3f2b8c1e-9d4a-4e5f-8a7b-6c5d4e3f2a1b)');
    same('busy (07:58:42)', 'busy (req_011CY15QS2LGwAeBxdfa6e1V)');
  });

  it('keeps the key a volatile value was written under', () => {
    different('timestamp=1749023922', 'created_at=1749023922');
    different('request_id=7f3a22b1', 'trace_id=7f3a22b1');
  });

  it('replaces a volatile value rather than dropping it', () => {
    different('done at 2025-06-04T07:58:42Z', 'done at ');
  });
});
