/**
 * A line's text is the UTF-8 it holds, whichever way it is decoded; its identifying keys written
 * twice at its top level are said, the same keys nested are not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
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

describe('decodeLine: the text of the bytes', () => {
  const anyText = fc.string({ unit: 'grapheme', maxLength: 80 });
  /** Without what a JSON string must escape: the text goes into one as it is. */
  const bare = (text: string): string => [...text].filter((char) => char !== '"' && char !== '\\' && char.charCodeAt(0) >= 0x20).join('');
  const bytesOf = (parts: readonly (string | number[])[]): Buffer =>
    Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

  it('reads valid UTF-8 — ASCII, two-, three- and four-byte characters, a BOM inside the line — as it was written', () => {
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 6 }), (texts) => {
        const value = { type: 'tool_result', outputs: texts, mixed: `x\ufeff${texts.join('✓')}😀é` };
        const line = JSON.stringify(value);
        const decoded = decodeLine(Buffer.from(line, 'utf8'));
        assert.equal(decoded.kind, 'json');
        if (decoded.kind !== 'json') return;
        assert.equal(decoded.text, line);
        assert.deepEqual(decoded.value, value);
        assert.equal(decoded.invalidUtf8, false);
      }),
    );
  });

  it('reads invalid UTF-8 as Node does, each bad sequence a replacement character, and says it is invalid', () => {
    const badSequences = [[0xff], [0xc3], [0xe2, 0x9c], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0x80, 0x80]];
    fc.assert(
      fc.property(anyText, fc.constantFrom(...badSequences), anyText, (before, bad, after) => {
        const bytes = bytesOf(['{"type":"note","text":"', bare(before), bad, bare(after), '"}']);
        const decoded = decodeLine(bytes);
        assert.equal(decoded.kind, 'json');
        if (decoded.kind !== 'json') return;
        assert.equal(decoded.text, bytes.toString('utf8'));
        assert.ok(decoded.text.includes('\ufffd'));
        assert.equal(decoded.invalidUtf8, true);
      }),
    );
  });
});
