import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clampInspectorWidth, defaultInspectorWidth, dividerWidth, inspectorWidthLimits, parseStoredWidth } from '../../src-renderer/components/splitterWidth';

const { min, timelineMin } = inspectorWidthLimits;

describe('clampInspectorWidth', () => {
  it('keeps a width that leaves the timeline its minimum', () => {
    assert.equal(clampInspectorWidth(500, 1440), 500);
  });

  it('never squeezes the timeline below its minimum', () => {
    assert.equal(clampInspectorWidth(5000, 1024), 1024 - timelineMin - dividerWidth);
  });

  it('never makes the inspector narrower than its minimum, even in a window too small for both', () => {
    assert.equal(clampInspectorWidth(10, 1440), min);
    assert.equal(clampInspectorWidth(600, 500), min);
  });
});

describe('parseStoredWidth', () => {
  it('reads back a stored width', () => {
    assert.equal(parseStoredWidth('612'), 612);
  });

  it('is no width (the default) on nothing, garbage or a non-positive number', () => {
    for (const stored of [null, '', 'wide', '-5', '0', 'Infinity']) assert.equal(parseStoredWidth(stored), null, String(stored));
  });
});

describe('defaultInspectorWidth', () => {
  it('is 40 % of the run body, at most 520 px', () => {
    assert.equal(defaultInspectorWidth(1024), 410);
    assert.equal(defaultInspectorWidth(1440), 520);
  });

  it('still leaves the timeline its minimum and the inspector its own', () => {
    assert.equal(defaultInspectorWidth(700), min);
  });
});
