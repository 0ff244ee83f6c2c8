/**
 * The top-level scan must agree with JSON.parse on every valid object line, and reject the broken
 * lines a cut or a corruption produces, since ingest trusts it instead of parsing long lines.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { memberPreview, memberValue, ScanError, scanTopLevel } from '../../../src-main/engine/bytes/topLevelScan';

const objectLine = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 8 });

describe('top-level scan', () => {
  it('finds every member of any JSON object, with the value JSON.parse gives', () => {
    fc.assert(
      fc.property(objectLine, fc.boolean(), (object, pretty) => {
        const bytes = Buffer.from(JSON.stringify(object, null, pretty ? 2 : undefined));
        const scan = scanTopLevel(bytes);
        const parsed = JSON.parse(bytes.toString()) as Record<string, unknown>;
        assert.deepEqual([...scan.keys()].sort(), Object.keys(parsed).sort());
        for (const [key, member] of scan) {
          assert.deepEqual(memberValue(bytes, member), parsed[key]);
          const value = parsed[key];
          if (Array.isArray(value)) assert.equal(member.size, value.length);
          else if (value !== null && typeof value === 'object') assert.equal(member.size, Object.keys(value).length);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('reads member names as JSON.parse does: escaped, multi-byte, or written as plain bytes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 6 }), { maxLength: 6 }), (names) => {
        const object = Object.fromEntries(names.map((name, i) => [name, i]));
        const bytes = Buffer.from(JSON.stringify(object));
        assert.deepEqual([...scanTopLevel(bytes).keys()].sort(), Object.keys(object).sort());
      }),
      { numRuns: 400 },
    );
    // Escapes a writer may use where JSON.stringify would not, and a raw control character, which JSON.parse rejects.
    assert.deepEqual([...scanTopLevel(Buffer.from('{"\\u0061b\\/":1,"caf\u00e9":2}')).keys()], ['ab/', 'café']);
    assert.throws(() => scanTopLevel(Buffer.from('{"a\tb":1}')), ScanError);
  });

  it('rejects every strict prefix of an object line (a line cut anywhere)', () => {
    fc.assert(
      fc.property(
        objectLine.filter((object) => Object.keys(object).length > 0),
        fc.nat(),
        (object, cut) => {
          const text = JSON.stringify(object);
          const bytes = Buffer.from(text.slice(0, 1 + (cut % (text.length - 1))));
          assert.throws(() => scanTopLevel(bytes), ScanError);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('rejects what is not one object', () => {
    for (const text of ['[1,2]', '"text"', '{"a":1} {"b":2}', '{"a":1,}', '{"a" 1}', '{"a":}', '{"a":[1,,2]}', '{"a":[1]]}']) {
      assert.throws(() => scanTopLevel(Buffer.from(text)), ScanError, text);
    }
  });

  it('counts the messages of a long request without parsing them, and handles escaped quotes', () => {
    const messages = Array.from({ length: 40 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `say \\"hi\\" and {[${i}]}`.repeat(50) }));
    const bytes = Buffer.from(JSON.stringify({ type: 'model_request', run_id: 7, messages, tools: [] }));
    const scan = scanTopLevel(bytes);
    assert.deepEqual(scan.get('messages')?.size, 40);
    assert.deepEqual(scan.get('tools')?.size, 0);
    assert.equal(memberValue(bytes, scan.get('run_id')!), 7);
  });

  it('previews the start of a long string output, unescaped, even when the cut splits an escape', () => {
    for (let pad = 0; pad < 8; pad += 1) {
      const output = `${'x'.repeat(595 + pad)}\u00e9\n"quoted"\t\u{1F600}${'y'.repeat(2000)}`;
      const bytes = Buffer.from(JSON.stringify({ type: 'tool_result', call_id: 'c', output }));
      const preview = memberPreview(bytes, scanTopLevel(bytes).get('output')!, 200);
      assert.equal(preview, output.slice(0, 200));
    }
  });
});
