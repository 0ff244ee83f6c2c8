/** Failure signatures and their groups (docs/semantics.md §15). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FindingKind } from '../../../shared/report';
import { groupBySignature, signatureOf, type SignatureOccurrence } from '../../../shared/signatures/failureSignature';

const occurrence = (
  runKey: string,
  text: string,
  at: string | null = null,
  kind: FindingKind = 'tool_error',
  tool: string | null = 'get_order',
): SignatureOccurrence<string> => ({
  subject: { kind, tool, text },
  runKey,
  at,
  item: `${runKey}: ${text}`,
});

describe('signatureOf', () => {
  it('normalizes the text and keys kind, tool and text', () => {
    const signature = signatureOf({ kind: 'tool_error', tool: 'get_order', text: 'ORDER_NOT_FOUND: order 8812 not found\nat line 3' });
    assert.deepEqual(signature, {
      key: '["tool_error","get_order","ORDER_NOT_FOUND: order <n> not found"]',
      kind: 'tool_error',
      tool: 'get_order',
      text: 'ORDER_NOT_FOUND: order <n> not found',
    });
  });

  it('equal for texts differing only in masked parts, different for another kind, tool or error', () => {
    const key = (kind: FindingKind, tool: string | null, text: string): string => signatureOf({ kind, tool, text }).key;
    assert.equal(key('tool_error', 'get_order', 'order 1 not found'), key('tool_error', 'get_order', 'order 2 not found'));
    assert.notEqual(key('tool_error', 'get_order', 'order 1 not found'), key('api_error', 'get_order', 'order 1 not found'));
    assert.notEqual(key('tool_error', 'get_order', 'order 1 not found'), key('tool_error', 'get_invoice', 'order 1 not found'));
    assert.notEqual(key('tool_error', null, 'x'), key('tool_error', 'null', 'x'));
    assert.notEqual(key('tool_error', 'get_order', 'NOT_FOUND'), key('tool_error', 'get_order', 'FORBIDDEN'));
  });
});

describe('groupBySignature', () => {
  it('counts findings and distinct runs: one run with the same finding twice counts once in runs, twice in findings', () => {
    const [group, ...rest] = groupBySignature(
      [occurrence('r1', 'order 1 not found'), occurrence('r1', 'order 2 not found'), occurrence('r2', 'order 3 not found')],
      4,
    );
    assert.equal(rest.length, 0);
    assert.ok(group);
    assert.equal(group.findings, 3);
    assert.equal(group.runs, 2);
    assert.equal(group.share, 0.5);
    assert.deepEqual(group.runKeys, ['r1', 'r2']);
    assert.equal(group.example, 'r1: order 1 not found');
    assert.equal(group.signature.text, 'order <n> not found');
  });

  it('first and last seen compare ISO times and skip unknown ones', () => {
    const [group] = groupBySignature(
      [
        occurrence('r1', 'boom', '2025-06-04T10:00:00.000Z'),
        occurrence('r2', 'boom', null),
        occurrence('r3', 'boom', '2025-06-03T09:00:00.000Z'),
        occurrence('r4', 'boom', '2025-06-05T08:00:00.000Z'),
      ],
      4,
    );
    assert.equal(group?.firstSeen, '2025-06-03T09:00:00.000Z');
    assert.equal(group?.lastSeen, '2025-06-05T08:00:00.000Z');
    const [unknown] = groupBySignature([occurrence('r1', 'boom', null)], 1);
    assert.equal(unknown?.firstSeen, null);
    assert.equal(unknown?.lastSeen, null);
  });

  it('share is 0 when there are no runs', () => {
    assert.equal(groupBySignature([occurrence('r1', 'boom')], 0)[0]?.share, 0);
  });

  it('orders by runs, then findings, then key, whatever the input order', () => {
    const items = [
      occurrence('r1', 'B_ERROR'),
      occurrence('r1', 'B_ERROR'),
      occurrence('r1', 'B_ERROR'),
      occurrence('r1', 'A_ERROR'),
      occurrence('r2', 'A_ERROR'),
      occurrence('r1', 'D_ERROR'),
      occurrence('r1', 'C_ERROR'),
    ];
    const order = (input: SignatureOccurrence<string>[]): string[] => groupBySignature(input, 2).map((group) => group.signature.text);
    // A: 2 runs; B: 1 run, 3 findings; C and D: 1 run, 1 finding each, C's key first.
    assert.deepEqual(order(items), ['A_ERROR', 'B_ERROR', 'C_ERROR', 'D_ERROR']);
    assert.deepEqual(order(items.toReversed()), ['A_ERROR', 'B_ERROR', 'C_ERROR', 'D_ERROR']);
  });

  it('keeps kinds and tools apart even with the same text', () => {
    const groups = groupBySignature(
      [occurrence('r1', 'boom', null, 'tool_error', 'a'), occurrence('r1', 'boom', null, 'tool_error', 'b'), occurrence('r1', 'boom', null, 'api_error', null)],
      1,
    );
    assert.equal(groups.length, 3);
  });

  it('accepts any iterable and gives no groups for none', () => {
    function* generate(): Generator<SignatureOccurrence<string>> {
      yield occurrence('r1', 'boom');
      yield occurrence('r2', 'boom');
    }
    assert.equal(groupBySignature(generate(), 2)[0]?.runs, 2);
    assert.deepEqual(groupBySignature([], 5), []);
  });
});
