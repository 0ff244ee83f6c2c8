/** A line's identifying keys written twice at its top level are said; the same keys nested are not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeLine } from '../../../src-main/engine/bytes/decodeLine';

function warningsOf(line: string): string[] {
  const decoded = decodeLine(Buffer.from(line));
  assert.equal(decoded.kind, 'json');
  return decoded.kind === 'json' ? decoded.warnings : [];
}

describe('decodeLine: identifying keys given twice', () => {
  it('says a top-level key given twice with different values, and which value is used', () => {
    const [warning, ...others] = warningsOf('{"type":"tool_call","run_id":"r1","type":"tool_result"}');
    assert.equal(others.length, 0);
    assert.match(warning!, /"type" is given 2 times \("tool_call", then "tool_result"\): the last is used/);
  });

  it('says nothing of a top-level key given twice with the same value', () => {
    assert.deepEqual(warningsOf('{"run_id":"r1","run_id":"r1","step":1}'), []);
  });

  it('says nothing of keys that repeat only inside nested values (a logged request: every message has a "type")', () => {
    const exchange = {
      request: {
        body: {
          messages: [
            { type: 'message', call_id: 'a' },
            { type: 'message', call_id: 'b' },
          ],
          tools: [{ type: 'function' }],
        },
      },
      response: { type: 'response' },
    };
    assert.deepEqual(warningsOf(JSON.stringify(exchange)), []);
    // A top-level key given once, repeated below it: still nothing.
    assert.deepEqual(warningsOf('{"type":"model_request","messages":[{"type":"text"},{"type":"image"}]}'), []);
  });

  it('says a top-level key given twice even when the same key is also nested', () => {
    const warnings = warningsOf('{"step":1,"messages":[{"step":7}],"step":2}');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /"step" is given 2 times \(1, then 2\)/);
  });

  it('says nothing for a line that is not an object', () => {
    assert.deepEqual(warningsOf('[{"type":"a"},{"type":"b"}]'), []);
  });
});
