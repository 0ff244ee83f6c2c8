/** Canonical JSON: sorted keys, no whitespace (docs/semantics.md §6). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../../shared/trace/canonicalJson';

describe('canonicalJson', () => {
  it('sorts object keys and leaves no whitespace', () => {
    assert.equal(canonicalJson({ b: 1, a: 'x y', c: true }), '{"a":"x y","b":1,"c":true}');
  });

  it('gives the same text for objects that differ only in key order, at any depth', () => {
    const one = { path: 'src', opts: { recursive: true, depth: 2 }, list: [{ y: 1, x: 2 }] };
    const two = { list: [{ x: 2, y: 1 }], opts: { depth: 2, recursive: true }, path: 'src' };
    assert.equal(canonicalJson(one), canonicalJson(two));
    assert.equal(canonicalJson(one), '{"list":[{"x":2,"y":1}],"opts":{"depth":2,"recursive":true},"path":"src"}');
  });

  it('keeps array order, since it is meaningful', () => {
    assert.notEqual(canonicalJson([1, 2]), canonicalJson([2, 1]));
    assert.equal(canonicalJson([3, 1, 2]), '[3,1,2]');
  });

  it('drops undefined object members like JSON.stringify does', () => {
    assert.equal(canonicalJson({ a: 1, b: undefined }), '{"a":1}');
    assert.equal(canonicalJson([undefined]), '[null]');
  });

  it('serializes primitives as JSON', () => {
    assert.equal(canonicalJson(null), 'null');
    assert.equal(canonicalJson(42), '42');
    assert.equal(canonicalJson('a"b'), '"a\\"b"');
    assert.equal(canonicalJson(false), 'false');
    assert.equal(canonicalJson(undefined), 'null');
  });

  it('escapes keys', () => {
    assert.equal(canonicalJson({ 'a"b': 1 }), '{"a\\"b":1}');
  });

  it('does not catch other semantic equivalences (accepted by design)', () => {
    assert.notEqual(canonicalJson({ n: 1 }), canonicalJson({ n: '1' }));
    assert.notEqual(canonicalJson({ path: './a' }), canonicalJson({ path: 'a' }));
  });

  it('round-trips to the same value', () => {
    const value = { z: [1, { b: null, a: 'é' }], a: { nested: { k: -0.5 } } };
    assert.deepEqual(JSON.parse(canonicalJson(value)), value);
  });
});
