import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSeverity, worstSeverity } from '../../shared/worstSeverity';

const none = { error: 0, warning: 0, info: 0 };

describe('worstSeverity', () => {
  it('is the worst severity with a finding, or null', () => {
    assert.equal(worstSeverity(none), null);
    assert.equal(worstSeverity({ ...none, info: 3 }), 'info');
    assert.equal(worstSeverity({ ...none, info: 3, warning: 1 }), 'warning');
    assert.equal(worstSeverity({ error: 1, warning: 9, info: 9 }), 'error');
  });
});

describe('runSeverity: a run is as bad as its worst finding or status', () => {
  it('a run with only warnings is a warning, not an error', () => {
    assert.equal(runSeverity('model_finished', { ...none, warning: 134 }), 'warning');
  });

  it('a failed status is an error even without findings; a budget stop is a warning', () => {
    assert.equal(runSeverity('failed', none), 'error');
    assert.equal(runSeverity('protocol_error', none), 'error');
    assert.equal(runSeverity('budget_exceeded', none), 'warning');
    assert.equal(runSeverity('unterminated', { ...none, info: 1 }), 'warning');
  });

  it('an error finding outweighs a warning status', () => {
    assert.equal(runSeverity('budget_exceeded', { ...none, error: 1 }), 'error');
  });

  it('a finished run with nothing to say has no severity', () => {
    assert.equal(runSeverity('succeeded', none), null);
    assert.equal(runSeverity('running', none), null);
    assert.equal(runSeverity('succeeded', { ...none, info: 2 }), 'info');
  });
});
