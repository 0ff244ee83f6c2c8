import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FindingRow } from '../../shared/api';
import { nextFinding } from '../../src-renderer/views/runModel';

const finding = (findingId: number, line: number | null): FindingRow => ({
  findingId,
  runPk: 1,
  runId: 'run',
  kind: 'dangling_call',
  severity: 'error',
  step: null,
  callId: null,
  line,
  eventId: null,
  message: '',
  details: null,
});

// In the order n / p walk them: by line, a finding without a line last.
const ordered = [finding(1, 10), finding(2, 20), finding(3, 30), finding(4, null)];
const ids = (found: FindingRow | undefined) => found?.findingId;

describe('nextFinding: where n / p go in a run', () => {
  it('from the active finding, the next or previous one, and nothing past either end', () => {
    assert.equal(ids(nextFinding(ordered, 2, 5, 1)), 3);
    assert.equal(ids(nextFinding(ordered, 2, 5, -1)), 1);
    assert.equal(ids(nextFinding(ordered, 1, null, -1)), undefined);
    assert.equal(ids(nextFinding(ordered, 4, null, 1)), undefined);
  });

  it('with none active, n goes to the first at or after the cursor line, and p to the last before it', () => {
    assert.equal(ids(nextFinding(ordered, null, 20, 1)), 2);
    assert.equal(ids(nextFinding(ordered, null, 21, 1)), 3);
    assert.equal(ids(nextFinding(ordered, null, 31, 1)), 4, 'a finding without a line is after every line');
    assert.equal(ids(nextFinding(ordered, null, 20, -1)), 1);
    assert.equal(ids(nextFinding(ordered, null, 10, -1)), undefined);
  });

  it('with none active and no cursor, n starts at the first finding and p goes nowhere', () => {
    assert.equal(ids(nextFinding(ordered, null, null, 1)), 1);
    assert.equal(ids(nextFinding(ordered, null, null, -1)), undefined);
  });

  it('an active finding no longer listed counts as none active', () => {
    assert.equal(ids(nextFinding(ordered, 99, 25, 1)), 3);
  });
});
