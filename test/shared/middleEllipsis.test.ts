import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idParts, pathParts } from '../../shared/middleEllipsis';

describe('idParts: the head gives way, the tail that tells ids apart stays', () => {
  it('keeps the last segment of a path-like id whole, so sibling sub-agents differ', () => {
    assert.deepEqual(idParts('fe5e1c67-53e7-4862-81ae-d0e013e3270b/sidechain-1'), { head: 'fe5e1c67-53e7-4862-81ae-d0e013e3270b', tail: '/sidechain-1' });
    assert.deepEqual(idParts('trace:span-7'), { head: 'trace', tail: ':span-7' });
  });

  it('keeps the last characters when the id has no short last segment', () => {
    assert.deepEqual(idParts('0123456789abcdefXYZ'), { head: '012345678', tail: '9abcdefXYZ' });
    assert.deepEqual(idParts(`run/${'x'.repeat(30)}`), { head: `run/${'x'.repeat(20)}`, tail: 'x'.repeat(10) });
    assert.deepEqual(idParts('abcdefghijkl', 4), { head: 'abcdefgh', tail: 'ijkl' });
  });

  it('never cuts a short id, and never splits a surrogate pair', () => {
    assert.deepEqual(idParts('run-a'), { head: '', tail: 'run-a' });
    const id = '😀'.repeat(15);
    const { head, tail } = idParts(id);
    assert.equal(head + tail, id);
    assert.equal(Array.from(tail).length, 10);
    assert.ok(!/[\uD800-\uDBFF]$/.test(head), 'the head does not end inside a pair');
  });

  it('a leading separator is no segment: the whole id is then the tail or cut by characters', () => {
    assert.deepEqual(idParts('/abc'), { head: '', tail: '/abc' });
  });
});

describe('pathParts: the directory gives way, the file name stays', () => {
  it('splits a POSIX path before its file name', () => {
    assert.deepEqual(pathParts('/home/me/.claude/projects/demo/subagents/agent-a1b2.jsonl'), {
      head: '/home/me/.claude/projects/demo/subagents',
      tail: '/agent-a1b2.jsonl',
    });
  });

  it('splits a Windows path before its file name', () => {
    assert.deepEqual(pathParts('C:\\Users\\me\\run.jsonl'), { head: 'C:\\Users\\me', tail: '\\run.jsonl' });
  });

  it('a bare file name is all tail', () => {
    assert.deepEqual(pathParts('run.jsonl'), { head: '', tail: 'run.jsonl' });
  });

  it('a path ending in a separator has an empty file name', () => {
    assert.deepEqual(pathParts('/tmp/'), { head: '/tmp', tail: '/' });
  });
});
